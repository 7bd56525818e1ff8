//! The sampling job (clip + time -> local pose) and its per-character cursor cache.

use super::track::Segment;
use super::Clip;
use crate::soa::{unpack_block, SoaTransform};
use crate::{AnimError, Transform};

/// Samples a clip into a local pose.
///
/// Joints the clip does not animate (and channels it does not animate) take the rest
/// pose. The output must have one entry per skeleton joint.
///
/// [`SamplingJob::run`] binary-searches the keys of every timeline on each call;
/// [`SamplingJob::run_with_cache`] starts from the keys found last time (kept in a
/// caller-owned [`SamplingCache`], like ozz-animation's `SamplingJob::Context`), which
/// is what playback and scrubbing want. Both give bit-identical poses.
pub struct SamplingJob<'a> {
    /// The clip to sample.
    pub clip: &'a Clip,
    /// Clip time in seconds; clamped to the key range of each track.
    pub time_secs: f32,
    /// Rest pose, one transform per joint, in parent space.
    pub rest_pose: &'a [Transform],
}

/// Per-character sampling state for [`SamplingJob::run_with_cache`]: the key index each
/// timeline of the last sampled clip was at, and scratch space.
///
/// Keep one per sampled clip instance (e.g. per character and blend layer) and reuse it
/// every frame. It resets itself when given a different clip. The cursors are only a
/// starting point: each one is checked against the keys around the new time, a time that
/// moved forward by a few keys is found by stepping, a larger jump forward or any jump
/// backwards by a binary search on the keys after or before the cursor. A stale cache
/// therefore never changes a result, only how long it takes.
#[derive(Clone, Debug, Default)]
pub struct SamplingCache {
    /// [`Clip`] uid the cursors belong to; 0 = none.
    clip_uid: u64,
    /// Key index per timeline of the clip.
    cursors: Vec<u32>,
    /// Scratch: the segment of each timeline at the time being sampled.
    segments: Vec<Segment>,
    /// Scratch: the blocks [`SamplingJob::run_with_cache`] samples before unpacking.
    blocks: Vec<SoaTransform>,
}

impl SamplingCache {
    /// An empty cache: the first run binary-searches every timeline.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the cursors; the next run starts with binary searches.
    pub fn invalidate(&mut self) {
        self.clip_uid = 0;
    }

    /// The segment of every timeline of `clip` at `t`, searched from the cursors.
    #[inline]
    fn locate(&mut self, clip: &Clip, t: f32) -> &[Segment] {
        self.prepare(clip);
        clip.runtime
            .locate(t, Some(&mut self.cursors[..]), &mut self.segments);
        &self.segments
    }

    /// Ready for `clip`: cursors reset unless they belong to it.
    fn prepare(&mut self, clip: &Clip) {
        let n = clip.runtime.timelines.len();
        if self.clip_uid != clip.uid || self.cursors.len() != n {
            self.clip_uid = clip.uid;
            self.cursors.clear();
            self.cursors.resize(n, 0);
            self.segments.clear();
            self.segments.resize(n, Segment::default());
        }
    }
}

/// Timelines whose segments [`SamplingJob::run`] keeps on the stack.
const STACK_TIMELINES: usize = 32;

/// Blocks (four joints each) [`SamplingJob::run`] samples on the stack before unpacking.
const STACK_BLOCKS: usize = 32;

/// Samples the clip's animated blocks into `blocks` (at least its block count) and
/// unpacks them into `output`; the joints past the animated blocks copy `rest_pose`.
#[inline]
fn write_per_joint(
    clip: &Clip,
    segments: &[Segment],
    rest_pose: &[Transform],
    blocks: &mut [SoaTransform],
    output: &mut [Transform],
) {
    let soa = &clip.runtime.soa;
    let n = soa.block_count();
    soa.write(segments, rest_pose, blocks);
    for (block, joints) in blocks[..n].iter().zip(output.chunks_mut(4)) {
        unpack_block(block, joints);
    }
    let tail = (4 * n).min(output.len());
    output[tail..].copy_from_slice(&rest_pose[tail..]);
}

/// Runs `f` on the segment of every timeline of `clip` at `t`, found by binary search
/// (on the stack for up to [`STACK_TIMELINES`] timelines).
#[inline]
fn with_segments(clip: &Clip, t: f32, f: impl FnOnce(&[Segment])) {
    let rt = &clip.runtime;
    let n = rt.timelines.len();
    let mut stack = [Segment::default(); STACK_TIMELINES];
    let mut heap = Vec::new();
    let segments = if n <= STACK_TIMELINES {
        &mut stack[..n]
    } else {
        heap.resize(n, Segment::default());
        &mut heap[..]
    };
    rt.locate(t, None, segments);
    f(segments)
}

impl SamplingJob<'_> {
    /// Writes the local pose into `output` (parent space, one per joint).
    pub fn run(&self, output: &mut [Transform]) -> Result<(), AnimError> {
        self.validate(output)?;
        let n = self.clip.runtime.soa.block_count();
        let mut stack = [SoaTransform::IDENTITY; STACK_BLOCKS];
        let mut heap = Vec::new();
        let blocks = if n <= STACK_BLOCKS {
            &mut stack[..n]
        } else {
            heap.resize(n, SoaTransform::IDENTITY);
            &mut heap[..]
        };
        with_segments(self.clip, self.time_secs, |segments| {
            write_per_joint(self.clip, segments, self.rest_pose, blocks, output)
        });
        Ok(())
    }

    /// As [`SamplingJob::run`], searching keys from where `cache` found them last time
    /// (see [`SamplingCache`]); the pose is bit-identical to `run`'s.
    pub fn run_with_cache(
        &self,
        cache: &mut SamplingCache,
        output: &mut [Transform],
    ) -> Result<(), AnimError> {
        self.validate(output)?;
        let n = self.clip.runtime.soa.block_count();
        if cache.blocks.len() < n {
            cache.blocks.resize(n, SoaTransform::IDENTITY);
        }
        let mut blocks = std::mem::take(&mut cache.blocks);
        let segments = cache.locate(self.clip, self.time_secs);
        write_per_joint(self.clip, segments, self.rest_pose, &mut blocks, output);
        cache.blocks = blocks;
        Ok(())
    }

    fn validate(&self, output: &[Transform]) -> Result<(), AnimError> {
        if output.len() != self.rest_pose.len() {
            return Err(AnimError::LengthMismatch {
                what: "sampling output",
                expected: self.rest_pose.len(),
                actual: output.len(),
            });
        }
        if !self.time_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "sampling time".into(),
            });
        }
        if let Some(last) = self.clip.tracks.last() {
            if last.joint >= output.len() {
                return Err(AnimError::JointOutOfRange {
                    what: format!("clip '{}'", self.clip.name),
                    joint: last.joint,
                    joint_count: output.len(),
                });
            }
        }
        Ok(())
    }
}

/// [`SamplingJob`] on structure-of-arrays poses: samples a clip into
/// [`SoaTransform`] blocks (joint `j` is lane `j % 4` of block `j / 4`), four joints at a
/// time. Every joint is bit for bit what [`SamplingJob`] writes for it (that job samples
/// the same blocks and unpacks them; `tests/sampling.rs`).
///
/// Joints (and channels) the clip does not animate take the rest pose, as do the padding
/// lanes of the last block.
pub struct SoaSamplingJob<'a> {
    /// The clip to sample.
    pub clip: &'a Clip,
    /// Clip time in seconds; clamped to the key range of each track.
    pub time_secs: f32,
    /// Rest pose in blocks ([`crate::Skeleton::rest_pose_soa`]), parent space.
    pub rest_pose: &'a [SoaTransform],
}

impl SoaSamplingJob<'_> {
    /// Writes the local pose into `output` (same length as `rest_pose`), binary-searching
    /// every timeline.
    pub fn run(&self, output: &mut [SoaTransform]) -> Result<(), AnimError> {
        self.validate(output)?;
        let soa = &self.clip.runtime.soa;
        with_segments(self.clip, self.time_secs, |segments| {
            soa.write(segments, self.rest_pose, output)
        });
        copy_rest_tail(soa.block_count(), self.rest_pose, output);
        Ok(())
    }

    /// As [`SoaSamplingJob::run`], searching keys from where `cache` found them last time
    /// (a [`SamplingCache`] serves both jobs; see its docs).
    pub fn run_with_cache(
        &self,
        cache: &mut SamplingCache,
        output: &mut [SoaTransform],
    ) -> Result<(), AnimError> {
        self.validate(output)?;
        let soa = &self.clip.runtime.soa;
        soa.write(
            cache.locate(self.clip, self.time_secs),
            self.rest_pose,
            output,
        );
        copy_rest_tail(soa.block_count(), self.rest_pose, output);
        Ok(())
    }

    fn validate(&self, output: &[SoaTransform]) -> Result<(), AnimError> {
        if output.len() != self.rest_pose.len() {
            return Err(AnimError::LengthMismatch {
                what: "SoA sampling output",
                expected: self.rest_pose.len(),
                actual: output.len(),
            });
        }
        if !self.time_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "sampling time".into(),
            });
        }
        if self.clip.runtime.soa.block_count() > output.len() {
            let joint = self.clip.tracks.last().map_or(0, |t| t.joint);
            return Err(AnimError::JointOutOfRange {
                what: format!("clip '{}'", self.clip.name),
                joint,
                joint_count: 4 * output.len(),
            });
        }
        Ok(())
    }
}

/// The blocks past the clip's animated ones (`from` on) take the rest pose. Most clips
/// animate the last joint, so there is usually nothing to copy: no `memcpy` call then.
#[inline(always)]
fn copy_rest_tail(from: usize, rest_pose: &[SoaTransform], output: &mut [SoaTransform]) {
    if from < output.len() {
        output[from..].copy_from_slice(&rest_pose[from..]);
    }
}
