//! The runtime form of a clip that both sampling jobs read: the channels' key times,
//! shared between channels with equal times (timelines), and the channels themselves in
//! structure-of-arrays form ([`SoaRuntime`]). [`SamplingJob`](super::SamplingJob) samples
//! through the same SoA form as [`SoaSamplingJob`](super::SoaSamplingJob) and unpacks the
//! blocks it wrote, so both jobs give identical bits for every joint.

use std::collections::HashMap;

use super::soa::SoaRuntime;
use super::track::Segment;
use super::JointTracks;

/// A run of keys in [`Runtime::times`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Timeline {
    start: u32,
    len: u32,
}

/// The runtime form of a clip's tracks (see [`Clip`](super::Clip)).
#[derive(Clone, Debug, Default)]
pub(super) struct Runtime {
    pub(super) timelines: Vec<Timeline>,
    times: Vec<f32>,
    /// The tracks in structure-of-arrays form (four joints per block).
    pub(super) soa: SoaRuntime,
}

impl Runtime {
    pub(super) fn new(tracks: &[JointTracks]) -> Self {
        let mut rt = Runtime::default();
        let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
        let (timelines, times) = (&mut rt.timelines, &mut rt.times);
        let mut timeline_of = |keys: &[f32]| -> u32 {
            let bits: Vec<u32> = keys.iter().map(|t| t.to_bits()).collect();
            *index.entry(bits).or_insert_with(|| {
                timelines.push(Timeline {
                    start: times.len() as u32,
                    len: keys.len() as u32,
                });
                times.extend_from_slice(keys);
                timelines.len() as u32 - 1
            })
        };
        rt.soa = SoaRuntime::new(tracks, &mut timeline_of);
        rt
    }

    /// Finds every timeline's segment at `t`, by binary search or, with `cursors`, from
    /// the cached key indices.
    #[inline]
    pub(super) fn locate(&self, t: f32, cursors: Option<&mut [u32]>, segments: &mut [Segment]) {
        match cursors {
            Some(cursors) => {
                for ((tl, seg), cursor) in self.timelines.iter().zip(segments).zip(cursors) {
                    let times = &self.times[tl.start as usize..(tl.start + tl.len) as usize];
                    *seg = Segment::locate_from(times, t, cursor);
                }
            }
            None => {
                for (tl, seg) in self.timelines.iter().zip(segments) {
                    let times = &self.times[tl.start as usize..(tl.start + tl.len) as usize];
                    *seg = Segment::locate(times, t);
                }
            }
        }
    }
}
