//! Retargeting that keeps the motion (issue 38): foot IK follows the source's feet instead
//! of pinning them where the source slides, a clip onto its own skeleton is the identity
//! with IK on, in-place walks are measured against the treadmill their feet imply, and a
//! retarget that strays from its source never scores better than one that follows it.
//!
//! The sources are a Bandai walk (root motion) and two clips made from it: the same walk
//! in place (the hips' ground travel removed, so the planted feet slide back under the
//! body at the walking speed) and a "skate" (the first frame's pose held while the hips
//! swing 0.5 m back and forth: both feet low and sliding on the floor at up to 3 m/s, the
//! way a dancer's feet slide, while their net travel is zero).

use std::path::{Path, PathBuf};

mod common;

use glam::{Quat, Vec3};
use stridescope::anim::retarget::RetargetOptions;
use stridescope::anim::{Clip, ClipRootMotion, Interpolation, JointTracks, SamplingJob, Track};
use stridescope::asset::{self, Model};
use stridescope::cli::retarget::retarget_models;
use stridescope::stage::retarget::ClipQualityReport;

use common::model_positions;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn walk_model() -> Model {
    asset::load(&shared("mocap/bandai/dataset-2_walk_normal_002.bvh")).unwrap()
}

/// The joint whose translation track carries the walk's travel (the Bandai hips).
fn hips(model: &Model) -> usize {
    model.skeleton.find("Hips").expect("a Hips joint")
}

/// `model`'s first clip with its hips' ground travel removed (x and z held at the first
/// frame's) and its net turn too (the take drifts about 7 degrees in heading over its 10 m,
/// which the in-place rule would call a turning clip): an in-place walk.
fn in_place(model: &Model) -> Clip {
    let mut clip = hips_rebuilt(model, &model.clips[0], 0.0);
    // The hips' heading drift, removed linearly over the take (twice: the yaw measured
    // from the hips' rotation is not exactly the yaw turned back).
    for _ in 0..2 {
        let yaw = ClipRootMotion::for_clip(&model.skeleton, &clip, None)
            .unwrap()
            .unwrap()
            .motion
            .cycle_displacement()
            .yaw_rad as f32;
        clip = hips_rebuilt(model, &clip, yaw);
    }
    clip
}

/// `clip` with the hips' x and z held at the first key's and the hips turned about the
/// vertical by `-yaw_rad * t / duration` (the hips' parent does not rotate).
fn hips_rebuilt(model: &Model, clip: &Clip, yaw_rad: f32) -> Clip {
    let h = hips(model);
    let duration = clip.duration_secs();
    let tracks = clip
        .tracks()
        .iter()
        .map(|t| {
            let mut t = t.clone();
            if t.joint == h {
                if let Some(tr) = &t.translation {
                    let first = tr.values()[0];
                    let values = tr
                        .values()
                        .iter()
                        .map(|v| Vec3::new(first.x, v.y, first.z))
                        .collect();
                    t.translation = Some(
                        Track::new(
                            Interpolation::Linear,
                            tr.times().to_vec(),
                            values,
                            "in place",
                        )
                        .unwrap(),
                    );
                }
                if let Some(r) = &t.rotation {
                    let values = r
                        .times()
                        .iter()
                        .zip(r.values())
                        .map(|(&s, q)| {
                            (Quat::from_rotation_y(-yaw_rad * s / duration) * *q).normalize()
                        })
                        .collect();
                    t.rotation = Some(
                        Track::new(r.interpolation(), r.times().to_vec(), values, "unturned")
                            .unwrap(),
                    );
                }
            }
            t
        })
        .collect();
    Clip::new(
        "walk in place".into(),
        tracks,
        Vec::new(),
        model.skeleton.joint_count(),
    )
    .unwrap()
    .with_frame_rate(clip.frame_rate_hz())
}

/// The first frame's pose held for 2 s while the hips swing 0.5 m sideways and back once
/// a second: the feet slide on the floor (low, no vertical motion) at up to 3.1 m/s.
fn skate(model: &Model) -> Clip {
    let clip = &model.clips[0];
    let mut local = model.skeleton.rest_pose().to_vec();
    SamplingJob {
        clip,
        time_secs: 0.0,
        rest_pose: model.skeleton.rest_pose(),
    }
    .run(&mut local)
    .unwrap();
    let h = hips(model);
    let times: Vec<f32> = (0..=60).map(|i| i as f32 / 30.0).collect();
    let mut tracks = Vec::new();
    for (j, t) in local.iter().enumerate() {
        let mut jt = JointTracks::new(j);
        jt.rotation = Some(
            Track::new(
                Interpolation::Linear,
                vec![0.0, 2.0],
                vec![t.rotation; 2],
                "r",
            )
            .unwrap(),
        );
        let translations = times
            .iter()
            .map(|&s| {
                let swing = if j == h {
                    0.5 * (std::f32::consts::TAU * s).sin()
                } else {
                    0.0
                };
                t.translation + Vec3::new(swing, 0.0, 0.0)
            })
            .collect();
        jt.translation =
            Some(Track::new(Interpolation::Linear, times.clone(), translations, "t").unwrap());
        tracks.push(jt);
    }
    Clip::new(
        "skate".into(),
        tracks,
        Vec::new(),
        model.skeleton.joint_count(),
    )
    .unwrap()
    .with_frame_rate(Some(30.0))
}

/// `model` with `clips` as its only clips.
fn with_clips(model: &Model, clips: Vec<Clip>) -> Model {
    let mut m = model.clone();
    m.clips = clips;
    m.analysis = Default::default();
    m
}

fn retarget(source: &Model, target: &Model, foot_ik: bool) -> (Vec<Clip>, Vec<ClipQualityReport>) {
    let options = RetargetOptions {
        foot_ik,
        ..Default::default()
    };
    let (clips, report) = retarget_models(source, target, &[], &options).unwrap();
    (clips, report.clips)
}

fn positions(model: &Model, clip: &Clip, t: f32) -> Vec<Vec3> {
    let mut local = model.skeleton.rest_pose().to_vec();
    SamplingJob {
        clip,
        time_secs: t,
        rest_pose: model.skeleton.rest_pose(),
    }
    .run(&mut local)
    .unwrap();
    model_positions(&model.skeleton, &local)
}

fn leg_length(model: &Model) -> f32 {
    let legs = model.legs().unwrap();
    legs.iter()
        .map(|l| stridescope::anim::contacts::leg_length(&model.skeleton, l))
        .sum::<f32>()
        / legs.len() as f32
}

/// Every clip onto its own skeleton, with foot IK on and off: each joint, relative to the
/// hips, within 1e-3 of a leg of the source's at every frame, and the quality figures say
/// so (the feet 0 legs from the source's, speed ratio 1).
#[test]
fn a_clip_onto_its_own_skeleton_is_the_identity_with_ik_on_and_off() {
    let walk = walk_model();
    let source = with_clips(
        &walk,
        vec![walk.clips[0].clone(), in_place(&walk), skate(&walk)],
    );
    let leg = leg_length(&source);
    let h = hips(&source);
    let parents = source.skeleton.parents();
    let mut below_hips = vec![false; parents.len()];
    for j in 0..parents.len() {
        below_hips[j] = j == h || parents[j].is_some_and(|p| below_hips[p]);
    }
    for foot_ik in [true, false] {
        let (clips, reports) = retarget(&source, &source, foot_ik);
        assert_eq!(clips.len(), 3);
        for ((src, out), q) in source.clips.iter().zip(&clips).zip(&reports) {
            let frames = (src.duration_secs() * 30.0).round() as usize;
            let mut worst = (0.0f32, 0usize, 0.0f32);
            for i in 0..=frames {
                let t = (i as f32 / 30.0).min(src.duration_secs());
                let (a, b) = (positions(&source, src, t), positions(&source, out, t));
                for (j, (x, y)) in a.iter().zip(&b).enumerate() {
                    // Joints above the hips (Bandai's `joint_Root` at the origin) are not
                    // retargeted: the hips carry the motion.
                    if !below_hips[j] {
                        continue;
                    }
                    let d = ((*x - a[h]) - (*y - b[h])).length() / leg;
                    if d > worst.0 {
                        worst = (d, j, t);
                    }
                }
            }
            assert!(
                worst.0 <= 1e-3,
                "{} (IK {foot_ik}): '{}' is {:.5} legs from the source at {} s",
                src.name(),
                source.skeleton.names()[worst.1],
                worst.0,
                worst.2
            );
            assert!(
                q.source_foot_deviation.max_legs <= 1e-3,
                "{} (IK {foot_ik}): {q:?}",
                src.name()
            );
            assert!((q.leg_ratio - 1.0).abs() < 1e-5, "{}: {q:?}", src.name());
        }
        // The walk travels: its hips' speed is the source's.
        assert!(
            (reports[0].speed_ratio - 1.0).abs() < 0.01,
            "{:?}",
            reports[0]
        );
    }
}

/// A foot that slides on the floor is not held back by foot IK: onto CesiumMan (another
/// body, legs 0.68 of the actor's) the skate's feet are as far from the source's (scaled)
/// with IK on as with IK off, and that distance does not grow as the feet slide: it is
/// CesiumMan's proportions (its ankles sit 0.11 legs from where the actor's scaled ones
/// would), the same at every frame. Pinned where they touch the floor, the feet would stay
/// up to 0.5 m x 0.68 behind the sliding source's: about half of CesiumMan's leg.
#[test]
fn a_sliding_foot_is_followed_not_pinned() {
    let walk = walk_model();
    let source = with_clips(&walk, vec![skate(&walk)]);
    let target = asset::load(&shared("assets/CesiumMan/CesiumMan.glb")).unwrap();
    let (_, ik) = retarget(&source, &target, true);
    let (_, fk) = retarget(&source, &target, false);
    let (ik, fk) = (&ik[0], &fk[0]);
    let (d_ik, d_fk) = (ik.source_foot_deviation, fk.source_foot_deviation);
    assert!(
        (d_ik.max_legs - d_fk.max_legs).abs() < 0.005,
        "IK {ik:?}\nno IK {fk:?}"
    );
    assert!(
        (d_ik.mean_legs - d_fk.mean_legs).abs() < 0.005,
        "IK {ik:?}\nno IK {fk:?}"
    );
    // A constant offset, not a drift: the largest is the mean.
    assert!(d_ik.max_legs - d_ik.mean_legs < 0.01, "{ik:?}");
    assert!(d_ik.max_legs < 0.15, "{ik:?}");
    // The sliding feet are not plants: nothing to pin, nothing that slides.
    assert!(ik.planted_foot_slide_mps < 0.01, "{ik:?}");
}

/// An in-place walk: its planted feet ride a treadmill backwards at the walking speed.
/// Measured against that ground the slide is near 0 (a world-space measure reads the
/// treadmill itself, about the walking speed), the speed ratio is the leg ratio (the
/// implied speeds of both sides), and the target's feet stay with the source's.
#[test]
fn an_in_place_walk_slides_near_zero_at_the_leg_ratio() {
    let walk = walk_model();
    let source = with_clips(&walk, vec![in_place(&walk)]);
    let implied = source.clip_analysis(0).unwrap();
    assert!(implied.in_place.in_place, "{:?}", implied.in_place);
    let walking = implied.speed() as f32;
    assert!(walking > 0.8, "implied speed {walking}");
    for target in [
        asset::load_from_slice(&asset::demo::demo_glb(), Path::new("demo.glb")).unwrap(),
        asset::load(&shared("assets/CesiumMan/CesiumMan.glb")).unwrap(),
    ] {
        let (_, reports) = retarget(&source, &target, true);
        let q = &reports[0];
        eprintln!("{}: {q:?}", target.source);
        assert!(q.source_in_place, "{q:?}");
        // Slide against the treadmill, in target legs per second: under 5% of the
        // walking speed (a world-space measure gives the whole treadmill speed).
        let target_walking = walking * q.leg_ratio;
        assert!(
            q.planted_foot_slide_mps < 0.1 * target_walking,
            "{}: {q:?}",
            target.source
        );
        assert!(
            (q.speed_ratio / q.leg_ratio - 1.0).abs() < 0.05,
            "{}: {q:?}",
            target.source
        );
        assert!(q.source_foot_deviation.max_legs < 0.25, "{q:?}");
    }
}

/// A retarget that strays from its source must score worse: the in-place walk onto its
/// own skeleton, once faithful and once with the feet nailed to the world (the hips' swing
/// put back while the legs keep the in-place pose, so the feet drift with the body): the
/// nailed one is further from the source and slides on the treadmill.
#[test]
fn a_retarget_that_strays_never_scores_better() {
    let walk = walk_model();
    let source = with_clips(&walk, vec![in_place(&walk)]);
    let (faithful, reports) = retarget(&source, &source, true);
    let good = &reports[0];
    // The stray: the whole body carried along at the walking speed (so the planted feet
    // stand still in the world instead of riding the treadmill the source's ride).
    let a = source.clip_analysis(0).unwrap();
    let velocity = a.implied.as_ref().unwrap().direction * a.speed() as f32;
    let h = hips(&source);
    let stray_tracks = faithful[0]
        .tracks()
        .iter()
        .map(|t| {
            let mut t = t.clone();
            if t.joint == h {
                let tr = t.translation.as_ref().unwrap();
                let values = tr
                    .times()
                    .iter()
                    .zip(tr.values())
                    .map(|(&s, v)| *v + velocity * s)
                    .collect();
                t.translation = Some(
                    Track::new(Interpolation::Linear, tr.times().to_vec(), values, "stray")
                        .unwrap(),
                );
            }
            t
        })
        .collect();
    let stray = Clip::new(
        "stray".into(),
        stray_tracks,
        Vec::new(),
        source.skeleton.joint_count(),
    )
    .unwrap()
    .with_frame_rate(faithful[0].frame_rate_hz());
    let legs = source.legs().unwrap();
    let planted = |_: usize, _: f32| true;
    let ground = |_: usize, _: f32| [-velocity; 2];
    let measure = |clip: &Clip| {
        stridescope::anim::retarget::quality::measure(
            &source.skeleton,
            clip,
            &legs,
            h,
            &planted,
            &ground,
            (1.0, None),
            1.0,
        )
        .unwrap()
    };
    let (q_good, q_stray) = (measure(&faithful[0]), measure(&stray));
    assert!(
        q_stray.planted_foot_slide_mps > q_good.planted_foot_slide_mps + 0.5 * velocity.length(),
        "faithful {q_good:?}, stray {q_stray:?}"
    );
    // The report's own figure for the faithful one: its feet are the source's.
    assert!(good.source_foot_deviation.max_legs < 1e-3, "{good:?}");
}
