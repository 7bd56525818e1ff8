//! The flat runtime form of a clip's tracks that [`SamplingJob`](super::SamplingJob)
//! reads, and the loops that sample it: channels sharing a timeline and an interpolation
//! are grouped, their values stored key-major.

use std::collections::HashMap;

use glam::{Quat, Vec3, Vec4};

use super::slerp::{slerp_four, slerp_normalized};
use super::soa::SoaRuntime;
use super::track::{hermite_weights, Interpolation, Segment, Track, TrackValue};
use super::JointTracks;
use crate::Transform;

/// A run of keys in [`Runtime::times`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Timeline {
    start: u32,
    len: u32,
}

/// Channels of one target (translation, rotation or scale) that share a timeline and an
/// interpolation, sampled together.
///
/// Values are stored key-major: key `k` (entry `e` of 3 for cubic splines) of the
/// group's channel `c` is at `values + (k * per_key + e) * count + c`, so the keys around
/// a time are two contiguous rows and the loop over the group's channels has no
/// per-channel indirection.
#[derive(Clone, Copy, Debug)]
struct Group {
    timeline: u32,
    interpolation: Interpolation,
    /// Offset of the group's channels in [`Runtime::joints`].
    first: u32,
    count: u32,
    /// Offset of the group's first value in its value array.
    values: u32,
}

impl Group {
    /// The `count` values of key `key`, entry `entry` (0 for STEP/LINEAR; 0 in-tangent,
    /// 1 value, 2 out-tangent for CUBICSPLINE).
    #[inline]
    fn row<'v, T>(&self, values: &'v [T], key: u32, entry: u32) -> &'v [T] {
        let per_key = if self.interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let start = self.values as usize + (key * per_key + entry) as usize * self.count as usize;
        &values[start..start + self.count as usize]
    }
}

/// A channel outside any [`Group`] (fewer than [`GROUP_MIN`] channels share its
/// timeline and interpolation); its values are contiguous, as in its [`Track`].
#[derive(Clone, Copy, Debug)]
struct Channel {
    joint: u32,
    timeline: u32,
    /// Offset of the channel's first value in its value array.
    values: u32,
    interpolation: Interpolation,
}

/// Smallest group worth its per-group setup (and a full SIMD batch of rotations).
const GROUP_MIN: usize = 4;

/// The channels of one target (translation, rotation or scale).
#[derive(Clone, Debug)]
struct Target<T> {
    /// Channels that hold one value ([`Track::constant`]): copied, never searched.
    constants: Vec<(u32, T)>,
    groups: Vec<Group>,
    /// Ungrouped LINEAR channels, batched across timelines.
    linear: Vec<Channel>,
    /// Ungrouped STEP and CUBICSPLINE channels.
    other: Vec<Channel>,
}

impl<T> Default for Target<T> {
    fn default() -> Self {
        Self {
            constants: Vec::new(),
            groups: Vec::new(),
            linear: Vec::new(),
            other: Vec::new(),
        }
    }
}

/// The flat runtime form of a clip's tracks (see [`Clip`](super::Clip)).
#[derive(Clone, Debug, Default)]
pub(super) struct Runtime {
    pub(super) timelines: Vec<Timeline>,
    times: Vec<f32>,
    vec3_values: Vec<Vec3>,
    quat_values: Vec<Quat>,
    /// Joint of each channel, group by group.
    joints: Vec<u32>,
    translations: Target<Vec3>,
    rotations: Target<Quat>,
    scales: Target<Vec3>,
    /// Joints below `animated_end` that keep at least one rest channel, as ranges
    /// `[start, end)`; joints from `animated_end` on are never animated.
    rest_ranges: Vec<(u32, u32)>,
    animated_end: u32,
    /// The same tracks in structure-of-arrays form (four joints per row), for
    /// [`SoaSamplingJob`](super::SoaSamplingJob).
    pub(super) soa: SoaRuntime,
}

/// Sorts one target's tracks into groups (values key-major) and loose channels (values
/// as in the track).
fn build_target<'t, T: TrackValue + 't>(
    tracks: impl Iterator<Item = (usize, &'t Track<T>)>,
    timeline_of: &mut impl FnMut(&[f32]) -> u32,
    joints: &mut Vec<u32>,
    values: &mut Vec<T>,
) -> Target<T> {
    // (timeline, interpolation) -> channels (joint, track), in joint order.
    type Channels<'a, T> = Vec<(usize, &'a Track<T>)>;
    let mut keyed: Vec<((u32, Interpolation), Channels<T>)> = Vec::new();
    let mut target = Target::default();
    for (joint, track) in tracks {
        if let Some(value) = track.constant() {
            target.constants.push((joint as u32, value));
            continue;
        }
        let key = (timeline_of(track.times()), track.interpolation());
        match keyed.iter_mut().find(|(k, _)| *k == key) {
            Some((_, channels)) => channels.push((joint, track)),
            None => keyed.push((key, vec![(joint, track)])),
        }
    }
    for ((timeline, interpolation), channels) in keyed {
        if channels.len() < GROUP_MIN {
            for (joint, track) in channels {
                let channel = Channel {
                    joint: joint as u32,
                    timeline,
                    values: values.len() as u32,
                    interpolation,
                };
                values.extend_from_slice(track.values());
                match interpolation {
                    Interpolation::Linear => target.linear.push(channel),
                    _ => target.other.push(channel),
                }
            }
            continue;
        }
        target.groups.push(Group {
            timeline,
            interpolation,
            first: joints.len() as u32,
            count: channels.len() as u32,
            values: values.len() as u32,
        });
        joints.extend(channels.iter().map(|&(joint, _)| joint as u32));
        // Every channel of the group has the same number of values.
        let rows = channels[0].1.values().len();
        for row in 0..rows {
            values.extend(channels.iter().map(|(_, track)| track.values()[row]));
        }
    }
    // Loose channels in joint order, for output locality.
    target.linear.sort_by_key(|c| c.joint);
    target.other.sort_by_key(|c| c.joint);
    target
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
        rt.translations = build_target(
            tracks
                .iter()
                .filter_map(|t| Some((t.joint, t.translation.as_ref()?))),
            &mut timeline_of,
            &mut rt.joints,
            &mut rt.vec3_values,
        );
        rt.rotations = build_target(
            tracks
                .iter()
                .filter_map(|t| Some((t.joint, t.rotation.as_ref()?))),
            &mut timeline_of,
            &mut rt.joints,
            &mut rt.quat_values,
        );
        rt.scales = build_target(
            tracks
                .iter()
                .filter_map(|t| Some((t.joint, t.scale.as_ref()?))),
            &mut timeline_of,
            &mut rt.joints,
            &mut rt.vec3_values,
        );
        rt.soa = SoaRuntime::new(tracks, &mut timeline_of);
        let mut next_joint = 0usize;
        for tracks in tracks {
            // Joints skipped since the previous animated joint keep their rest pose, and
            // so does this one unless all three channels are animated.
            let rest_end = if tracks.channel_count() == 3 {
                tracks.joint
            } else {
                tracks.joint + 1
            };
            if rest_end > next_joint {
                match rt.rest_ranges.last_mut() {
                    Some(last) if last.1 as usize == next_joint => last.1 = rest_end as u32,
                    _ => rt.rest_ranges.push((next_joint as u32, rest_end as u32)),
                }
            }
            next_joint = tracks.joint + 1;
        }
        rt.animated_end = next_joint as u32;
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

    /// Writes the rest pose where the clip leaves channels unanimated, then every
    /// channel. `output` and `rest_pose` have the same length, above every joint index.
    #[inline]
    pub(super) fn write(
        &self,
        segments: &[Segment],
        rest_pose: &[Transform],
        output: &mut [Transform],
    ) {
        for &(start, end) in &self.rest_ranges {
            let range = start as usize..end as usize;
            output[range.clone()].copy_from_slice(&rest_pose[range]);
        }
        let tail = self.animated_end as usize;
        output[tail..].copy_from_slice(&rest_pose[tail..]);
        for &(j, v) in &self.translations.constants {
            output[j as usize].translation = v;
        }
        for &(j, q) in &self.rotations.constants {
            output[j as usize].rotation = q;
        }
        for &(j, v) in &self.scales.constants {
            output[j as usize].scale = v;
        }
        let (vec3, quat) = (&self.vec3_values[..], &self.quat_values[..]);
        for group in &self.translations.groups {
            let joints = &self.joints[group.first as usize..][..group.count as usize];
            let seg = segments[group.timeline as usize];
            sample_vec3_group(group, seg, vec3, joints, |j, v| output[j].translation = v);
        }
        for group in &self.rotations.groups {
            let joints = &self.joints[group.first as usize..][..group.count as usize];
            let seg = segments[group.timeline as usize];
            sample_quat_group(group, seg, quat, joints, output);
        }
        for group in &self.scales.groups {
            let joints = &self.joints[group.first as usize..][..group.count as usize];
            let seg = segments[group.timeline as usize];
            sample_vec3_group(group, seg, vec3, joints, |j, v| output[j].scale = v);
        }
        for ch in &self.translations.linear {
            let seg = segments[ch.timeline as usize];
            let v = &vec3[ch.values as usize..];
            output[ch.joint as usize].translation =
                v[seg.i0 as usize].lerp(v[seg.i1 as usize], seg.s);
        }
        sample_loose_rotations(&self.rotations.linear, segments, quat, output);
        for ch in &self.scales.linear {
            let seg = segments[ch.timeline as usize];
            let v = &vec3[ch.values as usize..];
            output[ch.joint as usize].scale = v[seg.i0 as usize].lerp(v[seg.i1 as usize], seg.s);
        }
        for ch in &self.translations.other {
            let seg = segments[ch.timeline as usize];
            output[ch.joint as usize].translation =
                seg.sample(ch.interpolation, &vec3[ch.values as usize..]);
        }
        for ch in &self.rotations.other {
            let seg = segments[ch.timeline as usize];
            output[ch.joint as usize].rotation =
                seg.sample(ch.interpolation, &quat[ch.values as usize..]);
        }
        for ch in &self.scales.other {
            let seg = segments[ch.timeline as usize];
            output[ch.joint as usize].scale =
                seg.sample(ch.interpolation, &vec3[ch.values as usize..]);
        }
    }
}

/// Ungrouped LINEAR rotations, gathered four at a time across timelines for the SIMD
/// kernel.
#[inline]
fn sample_loose_rotations(
    channels: &[Channel],
    segments: &[Segment],
    values: &[Quat],
    output: &mut [Transform],
) {
    let mut fours = channels.chunks_exact(4);
    for four in &mut fours {
        let mut a = [Quat::IDENTITY; 4];
        let mut b = [Quat::IDENTITY; 4];
        let mut s = [0.0f32; 4];
        for (lane, ch) in four.iter().enumerate() {
            let seg = segments[ch.timeline as usize];
            let v = &values[ch.values as usize..];
            a[lane] = v[seg.i0 as usize];
            b[lane] = v[seg.i1 as usize];
            s[lane] = seg.s;
        }
        let q = slerp_four(a, b, Vec4::from_array(s));
        for (ch, q) in four.iter().zip(q) {
            output[ch.joint as usize].rotation = q;
        }
    }
    for ch in fours.remainder() {
        let seg = segments[ch.timeline as usize];
        let v = &values[ch.values as usize..];
        output[ch.joint as usize].rotation =
            slerp_normalized(v[seg.i0 as usize], v[seg.i1 as usize], seg.s);
    }
}

/// Samples a translation or scale group; `store(joint, value)` writes each channel.
#[inline]
fn sample_vec3_group(
    group: &Group,
    seg: Segment,
    values: &[Vec3],
    joints: &[u32],
    mut store: impl FnMut(usize, Vec3),
) {
    match group.interpolation {
        Interpolation::Step => {
            let a = group.row(values, seg.i0, 0);
            for (&j, &a) in joints.iter().zip(a) {
                store(j as usize, a);
            }
        }
        Interpolation::Linear => {
            let a = group.row(values, seg.i0, 0);
            let b = group.row(values, seg.i1, 0);
            for ((&j, &a), &b) in joints.iter().zip(a).zip(b) {
                store(j as usize, a.lerp(b, seg.s));
            }
        }
        Interpolation::CubicSpline => {
            let h = hermite_weights(seg);
            let v0 = group.row(values, seg.i0, 1);
            let m0 = group.row(values, seg.i0, 2);
            let v1 = group.row(values, seg.i1, 1);
            let m1 = group.row(values, seg.i1, 0);
            for (c, &j) in joints.iter().enumerate() {
                store(j as usize, Vec3::hermite(v0[c], m0[c], v1[c], m1[c], h));
            }
        }
    }
}

/// Samples a rotation group into `output`. LINEAR groups run the slerp kernel on four
/// channels at once, one per SIMD lane.
#[inline]
fn sample_quat_group(
    group: &Group,
    seg: Segment,
    values: &[Quat],
    joints: &[u32],
    output: &mut [Transform],
) {
    match group.interpolation {
        Interpolation::Step => {
            let a = group.row(values, seg.i0, 0);
            for (&j, &a) in joints.iter().zip(a) {
                output[j as usize].rotation = a.finish();
            }
        }
        Interpolation::Linear => {
            let a = group.row(values, seg.i0, 0);
            let b = group.row(values, seg.i1, 0);
            let mut a4 = a.chunks_exact(4);
            let mut b4 = b.chunks_exact(4);
            let mut j4 = joints.chunks_exact(4);
            let s = Vec4::splat(seg.s);
            for ((a, b), j) in (&mut a4).zip(&mut b4).zip(&mut j4) {
                let q = slerp_four([a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]], s);
                for (&j, q) in j.iter().zip(q) {
                    output[j as usize].rotation = q;
                }
            }
            let rest = a4.remainder().iter().zip(b4.remainder());
            for ((&a, &b), &j) in rest.zip(j4.remainder()) {
                output[j as usize].rotation = slerp_normalized(a, b, seg.s);
            }
        }
        Interpolation::CubicSpline => {
            let h = hermite_weights(seg);
            let v0 = group.row(values, seg.i0, 1);
            let m0 = group.row(values, seg.i0, 2);
            let v1 = group.row(values, seg.i1, 1);
            let m1 = group.row(values, seg.i1, 0);
            for (c, &j) in joints.iter().enumerate() {
                output[j as usize].rotation = Quat::hermite(v0[c], m0[c], v1[c], m1[c], h).finish();
            }
        }
    }
}
