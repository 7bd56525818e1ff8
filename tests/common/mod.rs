//! Helpers shared by the integration tests.

use stridescope::render::GpuContext;

pub mod skip;
pub mod three;
#[allow(unused_imports)] // Not every test file that includes `common` uses them.
pub use skip::{gpu_required, report_skip};

/// A headless GPU context, or `None` after saying why the test skips; where the GPU
/// tests must run ([`gpu_required`]) a missing adapter fails the test.
#[allow(dead_code)] // Not every test file that includes `common` uses it.
pub fn gpu() -> Option<GpuContext> {
    match GpuContext::headless() {
        Ok(ctx) => Some(ctx),
        Err(e) if gpu_required() => {
            panic!("the GPU tests must run (CI or STRIDESCOPE_REQUIRE_GPU=1) but there is no GPU adapter: {e}")
        }
        Err(e) => {
            report_skip(&format!("no GPU adapter ({e})"));
            None
        }
    }
}

/// `skeleton` and `clip` with every translation (rest pose and keys) times `k`.
#[allow(dead_code)] // Not every test file that includes `common` uses it.
pub fn scaled(
    skeleton: &stridescope::anim::Skeleton,
    clip: &stridescope::anim::Clip,
    k: f32,
) -> (stridescope::anim::Skeleton, stridescope::anim::Clip) {
    let rest = skeleton
        .rest_pose()
        .iter()
        .map(|t| stridescope::anim::Transform {
            translation: t.translation * k,
            ..*t
        })
        .collect();
    let sk = stridescope::anim::Skeleton::new(
        skeleton.names().to_vec(),
        skeleton.parents().to_vec(),
        rest,
    )
    .unwrap();
    let tracks = clip
        .tracks()
        .iter()
        .map(|t| {
            let mut s = t.clone();
            s.translation = t.translation.as_ref().map(|tr| {
                stridescope::anim::Track::new(
                    tr.interpolation(),
                    tr.times().to_vec(),
                    tr.values().iter().map(|v| *v * k).collect(),
                    "scaled",
                )
                .unwrap()
            });
            s
        })
        .collect();
    let clip = stridescope::anim::Clip::new(
        clip.name().to_string(),
        tracks,
        clip.markers().to_vec(),
        sk.joint_count(),
    )
    .unwrap();
    (sk, clip)
}

/// A primary click at `at` in an egui_kittest harness: move there, press, release (a
/// frame each), so widgets that read the pointer position (plots, painters) see a click.
#[allow(dead_code)] // Not every test file that includes `common` uses it.
pub fn click_at<S>(h: &mut egui_kittest::Harness<'_, S>, at: egui::Pos2) {
    h.event(egui::Event::PointerMoved(at));
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.run_steps(1);
    }
    h.run_steps(1);
}

/// Test material made from the shared samples (drift, rescale).
pub mod messy;

/// Scratch folders removed when dropped.
pub mod scratch;

/// `clip` sampled at `time_secs` on `skeleton`: local transforms, the rest pose where the
/// clip has no track.
#[allow(dead_code)] // Not every test file that includes `common` uses it.
pub fn sampled(
    skeleton: &stridescope::anim::Skeleton,
    clip: &stridescope::anim::Clip,
    time_secs: f32,
) -> Vec<stridescope::anim::Transform> {
    let mut local = skeleton.rest_pose().to_vec();
    stridescope::anim::SamplingJob {
        clip,
        time_secs,
        rest_pose: skeleton.rest_pose(),
    }
    .run(&mut local)
    .unwrap();
    local
}

/// Each joint's model-space position (the skeleton's units) in the pose `local`.
#[allow(dead_code)] // Not every test file that includes `common` uses it.
pub fn model_positions(
    skeleton: &stridescope::anim::Skeleton,
    local: &[stridescope::anim::Transform],
) -> Vec<glam::Vec3> {
    let mut model = vec![glam::Mat4::IDENTITY; skeleton.joint_count()];
    stridescope::anim::LocalToModelJob {
        parents: skeleton.parents(),
        local,
        model_from_root: glam::Mat4::IDENTITY,
    }
    .run(&mut model)
    .unwrap();
    model.iter().map(|m| m.w_axis.truncate()).collect()
}

/// `source`'s clips retargeted onto `target` with foot IK, then without: each run's
/// clips and report; the figures of both runs are printed (planted-foot slide, contact
/// agreement) under `label`.
#[allow(dead_code)] // Not every test file that includes `common` uses it.
pub fn retarget_with_and_without_ik(
    source: &stridescope::asset::Model,
    target: &stridescope::asset::Model,
    label: &str,
) -> [(
    Vec<stridescope::anim::Clip>,
    stridescope::stage::retarget::RetargetReport,
); 2] {
    let run = |foot_ik: bool| {
        let options = stridescope::anim::retarget::RetargetOptions {
            foot_ik,
            ..Default::default()
        };
        stridescope::cli::retarget::retarget_models(source, target, &[], &options).unwrap()
    };
    let runs = [run(true), run(false)];
    let (ik, fk) = (&runs[0].1.clips[0], &runs[1].1.clips[0]);
    eprintln!(
        "{label}: planted-foot slide {:.3} m/s with IK ({:.3} without), contact agreement \
         {:.2} ({:.2})",
        ik.planted_foot_slide_mps,
        fk.planted_foot_slide_mps,
        ik.contact_agreement,
        fk.contact_agreement
    );
    runs
}

/// A Mixamo-style FBX take (skeleton, names, units and conventions of Mixamo's files)
/// made from a Bandai capture: ../shared holds no Mixamo download.
pub mod mixamo;
