//! A clip's model-space pose at a time: sampling, the root motion taken out when asked, then
//! local-to-model, into the caller's buffers. Every analysis that looks at joints where
//! they are (contacts, implied speed, phase axes, retarget quality, key reduction's error,
//! the lint's foot slide) needs it; [`ModelPoseJob`] is that one step and
//! [`for_each_model_pose`] the loop over a run of times.

use glam::Mat4;

use super::{
    AnimError, Clip, ClipRootMotion, LocalToModelJob, SamplingCache, SamplingJob, Skeleton,
    SoaLocalToModelJob, SoaSamplingJob, Transform,
};

/// `clip` on `skeleton` at `time_secs` (clip seconds, clamped to the clip as sampling
/// does), in model space with an identity root. With `in_place` set, the clip's root
/// motion is taken out first (the pose stays where the clip starts), as the analyses of a
/// clip that travels need.
#[derive(Clone, Copy)]
pub struct ModelPoseJob<'a> {
    /// The skeleton the clip animates.
    pub skeleton: &'a Skeleton,
    /// The clip to sample.
    pub clip: &'a Clip,
    /// Clip seconds.
    pub time_secs: f32,
    /// The clip's root motion to take out (`None`: the pose as sampled).
    pub in_place: Option<&'a ClipRootMotion>,
}

impl ModelPoseJob<'_> {
    /// Writes the local pose into `local` and the model-from-joint matrices into `model`
    /// (both one per joint), searching keys from where `cache` found them last (a cache
    /// per clip and run of increasing times).
    ///
    /// Errors: buffers of the wrong length, a clip of another skeleton, a root motion
    /// that cannot be taken out.
    pub fn run_with_cache(
        &self,
        cache: &mut SamplingCache,
        local: &mut [Transform],
        model: &mut [Mat4],
    ) -> Result<(), AnimError> {
        self.sampling().run_with_cache(cache, local)?;
        self.finish(local, model)
    }

    /// As [`Self::run_with_cache`], for a single time (no cache to keep).
    pub fn run(&self, local: &mut [Transform], model: &mut [Mat4]) -> Result<(), AnimError> {
        self.sampling().run(local)?;
        self.finish(local, model)
    }

    fn sampling(&self) -> SamplingJob<'_> {
        SamplingJob {
            clip: self.clip,
            time_secs: self.time_secs,
            rest_pose: self.skeleton.rest_pose(),
        }
    }

    fn finish(&self, local: &mut [Transform], model: &mut [Mat4]) -> Result<(), AnimError> {
        if let Some(root) = self.in_place {
            root.source
                .remove(&root.motion, f64::from(self.time_secs), local)?;
        }
        LocalToModelJob {
            parents: self.skeleton.parents(),
            local,
            model_from_root: Mat4::IDENTITY,
        }
        .run(model)
    }
}

/// Calls `f(i, t, model_from_joint)` for the `i`-th time `t` of `times` (clip seconds):
/// `clip` sampled on `skeleton` at `t` and accumulated to model space (identity root),
/// its root motion taken out first when `in_place` is given. The buffers and the sampling
/// cache are made once for the whole run.
///
/// Errors: sampling or local-to-model failing (a clip of another skeleton), or the first
/// error `f` returns (which ends the run).
pub fn for_each_model_pose(
    skeleton: &Skeleton,
    clip: &Clip,
    in_place: Option<&ClipRootMotion>,
    times: impl IntoIterator<Item = f32>,
    mut f: impl FnMut(usize, f32, &[Mat4]) -> Result<(), AnimError>,
) -> Result<(), AnimError> {
    let mut model = vec![Mat4::IDENTITY; skeleton.joint_count()];
    let mut cache = SamplingCache::new();
    if in_place.is_none() {
        // The structure-of-arrays jobs give the per-joint jobs' matrices bit for bit
        // (`tests/soa_pipeline.rs`) without unpacking the pose into one transform per
        // joint; taking root motion out needs that per-joint pose, so it keeps the loop
        // below.
        let rest_pose = skeleton.rest_pose_soa();
        let mut local = rest_pose.to_vec();
        for (i, time_secs) in times.into_iter().enumerate() {
            SoaSamplingJob {
                clip,
                time_secs,
                rest_pose,
            }
            .run_with_cache(&mut cache, &mut local)?;
            SoaLocalToModelJob {
                parents: skeleton.parents(),
                local: &local,
                model_from_root: Mat4::IDENTITY,
            }
            .run(&mut model)?;
            f(i, time_secs, &model)?;
        }
        return Ok(());
    }
    let mut local = skeleton.rest_pose().to_vec();
    for (i, time_secs) in times.into_iter().enumerate() {
        ModelPoseJob {
            skeleton,
            clip,
            time_secs,
            in_place,
        }
        .run_with_cache(&mut cache, &mut local, &mut model)?;
        f(i, time_secs, &model)?;
    }
    Ok(())
}
