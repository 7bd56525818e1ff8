//! Helpers shared by the integration tests.

use stridescope::render::GpuContext;

/// A headless GPU context. With `CI` set a missing adapter fails the test (CI installs
/// lavapipe, so a skip there would hide a broken install); without it the test prints why
/// it skips and returns `None`.
#[allow(dead_code)] // Not every test file that includes `common` uses it.
pub fn gpu() -> Option<GpuContext> {
    match GpuContext::headless() {
        Ok(ctx) => Some(ctx),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("CI is set but there is no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("skipping: no GPU adapter ({e})");
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
