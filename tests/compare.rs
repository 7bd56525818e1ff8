//! A/B compare (issue 10): a clip against itself is zero everywhere; against a copy that
//! starts later in the cycle it is zero again once locked to phase (by hand or from the
//! markers), and not before.

use stridescope::anim::compare::{
    joint_map_by_name, marker_phase_offset, CompareJob, CompareScratch, CompareSide, PoseDifference,
};
use stridescope::anim::{Clip, ClipRootMotion, JointTracks, SyncMarker, Track};
use stridescope::asset::Model;

fn demo() -> Model {
    stridescope::asset::load_or_demo(None).unwrap()
}

/// `clip` started `m` keys later: every track must have the same evenly spaced keys with
/// the last one closing the loop. Past the wrap the root's keys are carried by the
/// cycle's rigid motion `D` (translation and turn, from its first and last keys), so the
/// copy is the same motion, turning clips included.
fn shifted(clip: &Clip, m: usize, root: usize) -> Clip {
    let d = clip.duration_secs();
    let rt = clip.joint_tracks(root).unwrap();
    let (p, q) = (
        rt.translation.as_ref().unwrap(),
        rt.rotation.as_ref().unwrap(),
    );
    let last = p.times().len() - 1;
    let turn = q.key_value(last) * q.key_value(0).inverse();
    let shift = p.key_value(last) - turn * p.key_value(0);
    let tracks = clip
        .tracks()
        .iter()
        .map(|t| {
            let is_root = t.joint == root;
            let mut s = JointTracks::new(t.joint);
            if let Some(r) = &t.rotation {
                let n = r.values().len() - 1;
                let values = (0..=n)
                    .map(|k| {
                        let v = r.values()[(k + m) % n];
                        if is_root && k + m >= n {
                            turn * v
                        } else {
                            v
                        }
                    })
                    .collect();
                s.rotation =
                    Some(Track::new(r.interpolation(), r.times().to_vec(), values, "b").unwrap());
            }
            for (src, dst, moves) in [
                (&t.translation, &mut s.translation, is_root),
                (&t.scale, &mut s.scale, false),
            ] {
                if let Some(tr) = src {
                    let n = tr.values().len() - 1;
                    let values = (0..=n)
                        .map(|k| {
                            let v = tr.values()[(k + m) % n];
                            if moves && k + m >= n {
                                turn * v + shift
                            } else {
                                v
                            }
                        })
                        .collect();
                    *dst = Some(
                        Track::new(tr.interpolation(), tr.times().to_vec(), values, "b").unwrap(),
                    );
                }
            }
            s
        })
        .collect();
    let step = d / (clip.tracks()[0].rotation.as_ref().unwrap().times().len() - 1) as f32;
    let markers = clip
        .markers()
        .iter()
        .map(|mk| SyncMarker {
            name: mk.name.clone(),
            time_secs: (mk.time_secs - m as f32 * step).rem_euclid(d),
        })
        .collect();
    Clip::new("Shifted".into(), tracks, markers, 24).unwrap()
}

fn max_over_cycle(job: &CompareJob, offset: f32) -> f32 {
    job.curve(offset, 45)
        .unwrap()
        .iter()
        .map(|s| s[1])
        .fold(0.0, f32::max)
}

#[test]
fn a_clip_against_itself_is_zero_everywhere() {
    let model = demo();
    let sk = &model.skeleton;
    let walk = &model.clips[model.find_clip("Walk").unwrap()];
    let rm = ClipRootMotion::for_clip(sk, walk, None).unwrap();
    let map = joint_map_by_name(sk, sk);
    let job = CompareJob {
        a: CompareSide {
            skeleton: sk,
            clip: walk,
            root_motion: rm.as_ref(),
        },
        b: CompareSide {
            skeleton: sk,
            clip: walk,
            root_motion: rm.as_ref(),
        },
        joint_map: &map,
    };
    let mut scratch = CompareScratch::default();
    let mut d = PoseDifference::default();
    for u in [0.0, 0.13, 0.5, 0.77, 0.999] {
        job.run(u, 0.0, &mut scratch, &mut d).unwrap();
        assert!(
            d.per_joint_m.iter().all(|&x| x == 0.0),
            "{u}: {:?}",
            d.per_joint_m
        );
        assert_eq!((d.max_m, d.mean_m, d.worst_joint), (0.0, 0.0, None));
    }
    assert_eq!(max_over_cycle(&job, 0.0), 0.0);
    // Half a cycle apart the feet swap: tens of centimetres.
    job.run(0.25, 0.5, &mut scratch, &mut d).unwrap();
    assert!(d.max_m > 0.2, "{}", d.max_m);
}

/// For the straight Walk and for TurnWalk, which turns 30 degrees a cycle (so the copy
/// starts facing another way).
#[test]
fn a_time_shifted_copy_is_zero_once_locked_to_phase() {
    let model = demo();
    let sk = &model.skeleton;
    for name in ["Walk", "TurnWalk"] {
        let walk = &model.clips[model.find_clip(name).unwrap()];
        let keys = walk.tracks()[0].rotation.as_ref().unwrap().times().len();
        for t in walk.tracks() {
            for times in [
                t.rotation.as_ref().map(|k| k.times()),
                t.translation.as_ref().map(|k| k.times()),
            ]
            .into_iter()
            .flatten()
            {
                assert_eq!(
                    times.len(),
                    keys,
                    "{name}: the demo's tracks share their keys"
                );
            }
        }
        let rm_a = ClipRootMotion::for_clip(sk, walk, None).unwrap().unwrap();
        let m = (keys - 1) / 3;
        let b = shifted(walk, m, rm_a.source.joint);
        let rm_b = ClipRootMotion::for_clip(sk, &b, None).unwrap().unwrap();
        let map = joint_map_by_name(sk, sk);
        let job = CompareJob {
            a: CompareSide {
                skeleton: sk,
                clip: walk,
                root_motion: Some(&rm_a),
            },
            b: CompareSide {
                skeleton: sk,
                clip: &b,
                root_motion: Some(&rm_b),
            },
            joint_map: &map,
        };
        // Unlocked, the copy is a third of a cycle off.
        assert!(max_over_cycle(&job, 0.0) > 0.1, "{name}");
        // B at phase u shows A's pose at u + m/n, so A's phase u is B's u - m/n.
        let offset = 1.0 - m as f32 / (keys - 1) as f32;
        let locked = max_over_cycle(&job, offset);
        assert!(locked < 1e-4, "{name} locked to phase: {locked} m");
        // The markers say the same.
        let from_markers = marker_phase_offset(walk, &b).expect("shared markers");
        assert!(
            (from_markers - offset).abs() < 1e-4,
            "{from_markers} vs {offset}"
        );
        assert!(max_over_cycle(&job, from_markers) < 1e-4, "{name}");
    }
}
