//! A clip's model-space poses at a run of times: sampling then local-to-model with one set
//! of buffers, the loop every clip analysis (contacts, phase axes, retarget quality) needs.

use glam::Mat4;

use super::{AnimError, Clip, LocalToModelJob, SamplingCache, SamplingJob, Skeleton};

/// Calls `f(i, t, model_from_joint)` for the `i`-th time `t` of `times` (clip seconds):
/// `clip` sampled on `skeleton` at `t` and accumulated to model space (identity root).
/// The buffers and the sampling cache are made once for the whole run.
///
/// Errors: sampling or local-to-model failing (a clip of another skeleton), or the first
/// error `f` returns (which ends the run).
pub fn for_each_model_pose(
    skeleton: &Skeleton,
    clip: &Clip,
    times: impl IntoIterator<Item = f32>,
    mut f: impl FnMut(usize, f32, &[Mat4]) -> Result<(), AnimError>,
) -> Result<(), AnimError> {
    let rest = skeleton.rest_pose();
    let mut local = rest.to_vec();
    let mut model = vec![Mat4::IDENTITY; skeleton.joint_count()];
    let mut cache = SamplingCache::new();
    for (i, t) in times.into_iter().enumerate() {
        SamplingJob {
            clip,
            time_secs: t,
            rest_pose: rest,
        }
        .run_with_cache(&mut cache, &mut local)?;
        LocalToModelJob {
            parents: skeleton.parents(),
            local: &local,
            model_from_root: Mat4::IDENTITY,
        }
        .run(&mut model)?;
        f(i, t, &model)?;
    }
    Ok(())
}
