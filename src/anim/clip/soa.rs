//! The structure-of-arrays form of a clip's tracks, which both sampling jobs read: keys
//! stored four joints to a vector (the joints of one [`SoaTransform`] block), so channels
//! are interpolated four at a time with vertical SIMD operations and written without
//! per-joint scatter. [`SamplingJob`](super::SamplingJob) unpacks the blocks afterwards.
//!
//! For each block and target (translation, rotation, scale) the lanes are of four kinds,
//! decided once when the clip is built:
//! - *rest*: the clip does not animate the channel; the rest pose's value;
//! - *fixed*: the channel holds one value ([`Track::constant`]); copied;
//! - *keyed*: LINEAR channels on the block's most common timeline;
//! - *loose*: anything else (another timeline, STEP or CUBICSPLINE); sampled one lane at
//!   a time with [`Segment::sample`], as [`Track::sample`] does.
//!
//! Keyed values are stored key-major per timeline: key `k`'s row holds every keyed
//! block-target of that timeline, so the two rows around a time are read in one forward
//! sweep through memory whatever the number of joints.
//!
//! Every value is what [`Track::sample`] gives for its channel, bit for bit: translations
//! and scales are `a * (1 - s) + b * s`, and rotations run the kernel of [`super::slerp`]
//! from the data [`prepare`] computes for each key pair, stored in the rows (`a`, `c`,
//! `Ω`: nine vectors a key).

use glam::{BVec4A, Quat, Vec3, Vec4};

use super::slerp::{prepare, slerp_prepared};
use super::track::{Interpolation, Segment, Track};
use super::JointTracks;
use crate::soa::{soa_len, SoaTransform};
use crate::Transform;

/// Target of a block: 0 translation, 1 rotation, 2 scale.
type TargetIndex = u8;
const T: TargetIndex = 0;
const R: TargetIndex = 1;
const S: TargetIndex = 2;

/// Vectors per key of a keyed block-target in a timeline's rows: 3 for translation and
/// scale (x, y, z of four lanes); 9 for rotation (`a`, `c` and `Ω`, see the module docs).
const fn row_width(target: TargetIndex) -> usize {
    if target == R {
        9
    } else {
        3
    }
}

/// Where a target's entries come in a frame: rotations, translations, scales.
const fn target_order(target: TargetIndex) -> u8 {
    match target {
        R => 0,
        T => 1,
        _ => 2,
    }
}

/// A keyed block-target inside its timeline's rows.
#[derive(Clone, Copy, Debug)]
struct Entry {
    block: u32,
    /// Offset of its vectors in each key row.
    offset: u32,
    keyed_mask: BVec4A,
    /// Every lane keyed: stored without a select.
    all_keyed: bool,
}

/// The keyed block-targets of one timeline.
#[derive(Clone, Copy, Debug)]
struct Frame {
    timeline: u32,
    /// Vectors per key row.
    stride: u32,
    /// Offset of key 0's row in [`SoaRuntime::rows`].
    rows: u32,
    /// `entries[first..first + count]`: the rotations first, then the translations, then
    /// the scales, so each runs in a loop of its own (no branch on the target per entry).
    first: u32,
    count: u32,
    /// How many of the entries are rotations, and how many translations.
    rotations: u32,
    translations: u32,
}

/// A block-target with rest or fixed lanes: written before the keyed values.
#[derive(Clone, Copy, Debug)]
struct Base {
    block: u32,
    target: TargetIndex,
    fixed_mask: BVec4A,
    /// Offset of the fixed values (3 or 4 vectors) in [`SoaRuntime::rows`].
    fixed: u32,
}

/// A lane sampled on its own.
#[derive(Clone, Copy, Debug)]
struct Loose {
    block: u32,
    target: TargetIndex,
    lane: u8,
    timeline: u32,
    interpolation: Interpolation,
    /// Offset of the channel's values (as in its [`Track`]) in the loose value arrays.
    values: u32,
}

/// The SoA runtime form of a clip (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct SoaRuntime {
    frames: Vec<Frame>,
    entries: Vec<Entry>,
    /// Block-targets with rest or fixed lanes, those with fixed lanes first.
    bases: Vec<Base>,
    /// How many of `bases` have a fixed lane: after a bulk copy of the rest pose, the
    /// others are already written.
    fixed_bases: usize,
    /// Whether a rest pose in blocks is copied whole: where there are at least as many
    /// rest-only block-targets as blocks. The copy writes ten vectors a block; a
    /// rest-only block-target three or four, after a branch. (The Fox's clips: 14 in 6
    /// blocks, a frame faster with the copy in 3 of 4 rounds; the Robot's walk: 9 in 15
    /// blocks, faster without in 4 of 5 rounds, by 2-4%.)
    bulk_rest: bool,
    /// Keyed rows (per frame, key-major) and fixed values.
    rows: Vec<Vec4>,
    loose: Vec<Loose>,
    loose_vec3: Vec<Vec3>,
    loose_quat: Vec<Quat>,
    /// Blocks holding an animated joint; the blocks after them keep the rest pose.
    block_count: usize,
}

/// What the clip does with one lane of one target.
enum Lane<'t> {
    Rest,
    Fixed([f32; 4]),
    Vec3(&'t Track<Vec3>, u32),
    Quat(&'t Track<Quat>, u32),
}

impl Lane<'_> {
    /// Timeline of a LINEAR keyed channel.
    fn linear_timeline(&self) -> Option<u32> {
        match self {
            Lane::Vec3(t, tl) if t.interpolation() == Interpolation::Linear => Some(*tl),
            Lane::Quat(t, tl) if t.interpolation() == Interpolation::Linear => Some(*tl),
            _ => None,
        }
    }
}

/// Where the SoA writer takes the values of the lanes a clip leaves at the rest pose:
/// a rest pose in blocks, or a per-joint one gathered four joints at a time.
pub(super) trait RestBlocks {
    /// The rest pose as blocks, when it is stored that way: the writer then copies it
    /// whole (one `memcpy`) instead of block-target by block-target.
    #[inline(always)]
    fn as_blocks(&self) -> Option<&[SoaTransform]> {
        None
    }
    /// x, y, z of block `b`'s four translations.
    fn translation(&self, b: usize) -> [Vec4; 3];
    /// x, y, z, w of block `b`'s four rotations.
    fn rotation(&self, b: usize) -> [Vec4; 4];
    /// x, y, z of block `b`'s four scales.
    fn scale(&self, b: usize) -> [Vec4; 3];
}

impl RestBlocks for [SoaTransform] {
    #[inline(always)]
    fn as_blocks(&self) -> Option<&[SoaTransform]> {
        Some(self)
    }
    #[inline(always)]
    fn translation(&self, b: usize) -> [Vec4; 3] {
        self[b].translation
    }
    #[inline(always)]
    fn rotation(&self, b: usize) -> [Vec4; 4] {
        self[b].rotation
    }
    #[inline(always)]
    fn scale(&self, b: usize) -> [Vec4; 3] {
        self[b].scale
    }
}

impl RestBlocks for [Transform] {
    #[inline]
    fn translation(&self, b: usize) -> [Vec4; 3] {
        let [x, y, z, _] = gather(self, b, |t| t.translation.extend(0.0));
        [x, y, z]
    }
    #[inline]
    fn rotation(&self, b: usize) -> [Vec4; 4] {
        gather(self, b, |t| Vec4::from(t.rotation))
    }
    #[inline]
    fn scale(&self, b: usize) -> [Vec4; 3] {
        let [x, y, z, _] = gather(self, b, |t| t.scale.extend(1.0));
        [x, y, z]
    }
}

/// One component of joints `4b..4b + 4` as four lane vectors (one transpose); missing
/// joints read as the identity.
#[inline(always)]
fn gather(pose: &[Transform], b: usize, f: impl Fn(&Transform) -> Vec4) -> [Vec4; 4] {
    let get = |i: usize| f(pose.get(4 * b + i).unwrap_or(&Transform::IDENTITY));
    let m = glam::Mat4::from_cols(get(0), get(1), get(2), get(3)).transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
}

impl SoaRuntime {
    /// `timeline_of` gives the index of a key-time array in the clip's shared timelines
    /// (the ones [`super::runtime::Runtime::locate`] finds segments for).
    pub(super) fn new(tracks: &[JointTracks], timeline_of: &mut impl FnMut(&[f32]) -> u32) -> Self {
        let block_count = tracks.last().map_or(0, |t| soa_len(t.joint + 1));
        let mut lanes: Vec<[[Lane; 4]; 3]> = (0..block_count)
            .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| Lane::Rest)))
            .collect();
        for jt in tracks {
            let (b, l) = (jt.joint / 4, jt.joint % 4);
            if let Some(t) = &jt.translation {
                lanes[b][T as usize][l] = match t.constant() {
                    Some(v) => Lane::Fixed([v.x, v.y, v.z, 0.0]),
                    None => Lane::Vec3(t, timeline_of(t.times())),
                };
            }
            if let Some(t) = &jt.rotation {
                lanes[b][R as usize][l] = match t.constant() {
                    Some(q) => Lane::Fixed(q.to_array()),
                    None => Lane::Quat(t, timeline_of(t.times())),
                };
            }
            if let Some(t) = &jt.scale {
                lanes[b][S as usize][l] = match t.constant() {
                    Some(v) => Lane::Fixed([v.x, v.y, v.z, 0.0]),
                    None => Lane::Vec3(t, timeline_of(t.times())),
                };
            }
        }
        let mut rt = SoaRuntime {
            block_count,
            ..Default::default()
        };
        // Keyed block-targets per timeline: (timeline, [(block, target, keyed lanes)]).
        type Keyed = Vec<(u32, TargetIndex, [bool; 4])>;
        let mut per_timeline: Vec<(u32, Keyed)> = Vec::new();
        for (b, targets) in lanes.iter().enumerate() {
            for (target, lanes) in targets.iter().enumerate() {
                let target = target as TargetIndex;
                // The LINEAR timeline most lanes share is keyed; other animated lanes are loose.
                let timeline = lanes
                    .iter()
                    .filter_map(Lane::linear_timeline)
                    .max_by_key(|&tl| {
                        let n = lanes
                            .iter()
                            .filter(|l| l.linear_timeline() == Some(tl))
                            .count();
                        // Ties: the first timeline.
                        (n, std::cmp::Reverse(tl))
                    });
                let keyed: [bool; 4] = std::array::from_fn(|i| {
                    timeline.is_some() && lanes[i].linear_timeline() == timeline
                });
                let fixed: [bool; 4] = std::array::from_fn(|i| matches!(lanes[i], Lane::Fixed(_)));
                if keyed != [true; 4] {
                    let fixed_at = rt.rows.len() as u32;
                    if fixed.contains(&true) {
                        let n = if target == R { 4 } else { 3 };
                        for c in 0..n {
                            rt.rows.push(Vec4::from_array(std::array::from_fn(|i| {
                                match &lanes[i] {
                                    Lane::Fixed(v) => v[c],
                                    _ => 0.0,
                                }
                            })));
                        }
                    }
                    rt.bases.push(Base {
                        block: b as u32,
                        target,
                        fixed_mask: BVec4A::from_array(fixed),
                        fixed: fixed_at,
                    });
                }
                if let Some(tl) = timeline {
                    match per_timeline.iter_mut().find(|(t, _)| *t == tl) {
                        Some((_, list)) => list.push((b as u32, target, keyed)),
                        None => per_timeline.push((tl, vec![(b as u32, target, keyed)])),
                    }
                }
                for (lane, kind) in lanes.iter().enumerate() {
                    if keyed[lane] {
                        continue;
                    }
                    let (timeline, interpolation, values) = match kind {
                        Lane::Vec3(t, tl) => {
                            let at = rt.loose_vec3.len() as u32;
                            rt.loose_vec3.extend_from_slice(t.values());
                            (*tl, t.interpolation(), at)
                        }
                        Lane::Quat(t, tl) => {
                            let at = rt.loose_quat.len() as u32;
                            rt.loose_quat.extend_from_slice(t.values());
                            (*tl, t.interpolation(), at)
                        }
                        _ => continue,
                    };
                    rt.loose.push(Loose {
                        block: b as u32,
                        target,
                        lane: lane as u8,
                        timeline,
                        interpolation,
                        values,
                    });
                }
            }
        }
        // Stable: fixed-lane bases first, each group in block order.
        rt.bases.sort_by_key(|b| !b.fixed_mask.any());
        rt.fixed_bases = rt.bases.iter().filter(|b| b.fixed_mask.any()).count();
        rt.bulk_rest = rt.bases.len() - rt.fixed_bases >= rt.block_count;
        for (timeline, mut keyed) in per_timeline {
            // Rotations, translations, scales; each in block order (see `Frame`).
            keyed.sort_by_key(|&(b, target, _)| (target_order(target), b));
            let count_of = |t: TargetIndex| keyed.iter().filter(|e| e.1 == t).count() as u32;
            let (rotations, translations) = (count_of(R), count_of(T));
            let first = rt.entries.len() as u32;
            let mut stride = 0u32;
            for &(block, target, mask) in &keyed {
                rt.entries.push(Entry {
                    block,
                    offset: stride,
                    keyed_mask: BVec4A::from_array(mask),
                    all_keyed: mask == [true; 4],
                });
                stride += row_width(target) as u32;
            }
            // Every keyed channel of a timeline has one value per key time.
            let key_count = keyed
                .iter()
                .find_map(|&(b, target, mask)| {
                    let lane = mask.iter().position(|&k| k)?;
                    Some(match &lanes[b as usize][target as usize][lane] {
                        Lane::Vec3(t, _) => t.values().len(),
                        Lane::Quat(t, _) => t.values().len(),
                        _ => 0,
                    })
                })
                .unwrap_or(0);
            let rows_at = rt.rows.len() as u32;
            for k in 0..key_count {
                for &(b, target, mask) in &keyed {
                    let lanes = &lanes[b as usize][target as usize];
                    if target == R {
                        let mut seg = [([0.0f32; 4], [0.0f32; 4], 0.0f32); 4];
                        for (i, lane) in lanes.iter().enumerate() {
                            seg[i] = match lane {
                                Lane::Quat(t, _) if mask[i] => {
                                    let v = t.values();
                                    prepare(v[k], v[(k + 1).min(v.len() - 1)])
                                }
                                _ => ([0.0, 0.0, 0.0, 1.0], [0.0; 4], 0.0),
                            };
                        }
                        for c in 0..4 {
                            rt.rows
                                .push(Vec4::from_array(std::array::from_fn(|i| seg[i].0[c])));
                        }
                        for c in 0..4 {
                            rt.rows
                                .push(Vec4::from_array(std::array::from_fn(|i| seg[i].1[c])));
                        }
                        rt.rows
                            .push(Vec4::from_array(std::array::from_fn(|i| seg[i].2)));
                    } else {
                        let v: [[f32; 3]; 4] = std::array::from_fn(|i| match &lanes[i] {
                            Lane::Vec3(t, _) if mask[i] => t.values()[k].to_array(),
                            _ => [0.0; 3],
                        });
                        rt.rows.extend(
                            (0..3).map(|c| Vec4::from_array(std::array::from_fn(|i| v[i][c]))),
                        );
                    }
                }
            }
            rt.frames.push(Frame {
                timeline,
                stride,
                rows: rows_at,
                first,
                count: keyed.len() as u32,
                rotations,
                translations,
            });
        }
        rt
    }

    /// Blocks an output must have at least (the last animated joint's block and those
    /// before it).
    pub(super) fn block_count(&self) -> usize {
        self.block_count
    }

    /// Samples at the timelines' `segments` into the first [`Self::block_count`] blocks of
    /// `output`; unanimated lanes take `rest`'s values. Blocks past those are not written.
    #[inline]
    pub(super) fn write<R: RestBlocks + ?Sized>(
        &self,
        segments: &[Segment],
        rest: &R,
        output: &mut [SoaTransform],
    ) {
        // Unanimated lanes: with the rest pose in blocks and many rest-only block-targets,
        // one bulk copy of the animated blocks (keyed ones included) and then only the
        // block-targets with fixed lanes; otherwise every rest or fixed block-target.
        let bases = match rest.as_blocks().filter(|_| self.bulk_rest) {
            Some(blocks) => {
                let n = self.block_count;
                output[..n].copy_from_slice(&blocks[..n]);
                &self.bases[..self.fixed_bases]
            }
            None => &self.bases[..],
        };
        for base in bases {
            let b = base.block as usize;
            let out = &mut output[b];
            let fixed = &self.rows[base.fixed as usize..];
            let any_fixed = base.fixed_mask.any();
            let pick = |c: usize, rest: Vec4| {
                if any_fixed {
                    Vec4::select(base.fixed_mask, fixed[c], rest)
                } else {
                    rest
                }
            };
            match base.target {
                T => {
                    let r = rest.translation(b);
                    out.translation = std::array::from_fn(|c| pick(c, r[c]));
                }
                R => {
                    let r = rest.rotation(b);
                    out.rotation = std::array::from_fn(|c| pick(c, r[c]));
                }
                _ => {
                    let r = rest.scale(b);
                    out.scale = std::array::from_fn(|c| pick(c, r[c]));
                }
            }
        }
        for frame in &self.frames {
            let seg = segments[frame.timeline as usize];
            let stride = frame.stride as usize;
            let row0 = &self.rows[frame.rows as usize + seg.i0 as usize * stride..][..stride];
            let row1 = &self.rows[frame.rows as usize + seg.i1 as usize * stride..][..stride];
            let s = Vec4::splat(seg.s);
            let u = Vec4::splat(1.0 - seg.s);
            let entries = &self.entries[frame.first as usize..][..frame.count as usize];
            let (rotations, rest) = entries.split_at(frame.rotations as usize);
            let (translations, scales) = rest.split_at(frame.translations as usize);
            for e in rotations {
                let out = &mut output[e.block as usize].rotation;
                let d = &row0[e.offset as usize..][..9];
                let q = slerp_prepared([d[0], d[1], d[2], d[3]], [d[4], d[5], d[6], d[7]], d[8], s);
                *out = if e.all_keyed {
                    q
                } else {
                    std::array::from_fn(|c| Vec4::select(e.keyed_mask, q[c], out[c]))
                };
            }
            let lerp = |e: &Entry, dst: &mut [Vec4; 3]| {
                let o = e.offset as usize;
                let (a, b) = (&row0[o..o + 3], &row1[o..o + 3]);
                let v = [
                    a[0] * u + b[0] * s,
                    a[1] * u + b[1] * s,
                    a[2] * u + b[2] * s,
                ];
                *dst = if e.all_keyed {
                    v
                } else {
                    std::array::from_fn(|c| Vec4::select(e.keyed_mask, v[c], dst[c]))
                };
            };
            for e in translations {
                lerp(e, &mut output[e.block as usize].translation);
            }
            for e in scales {
                lerp(e, &mut output[e.block as usize].scale);
            }
        }
        for ch in &self.loose {
            let seg = segments[ch.timeline as usize];
            let v = ch.values as usize;
            let out = &mut output[ch.block as usize];
            let lane = ch.lane as usize;
            match ch.target {
                R => {
                    let q = seg.sample(ch.interpolation, &self.loose_quat[v..]);
                    for (c, x) in q.to_array().into_iter().enumerate() {
                        set_lane(&mut out.rotation[c], lane, x);
                    }
                }
                target => {
                    let x = seg.sample(ch.interpolation, &self.loose_vec3[v..]);
                    let dst = if target == T {
                        &mut out.translation
                    } else {
                        &mut out.scale
                    };
                    for (c, x) in x.to_array().into_iter().enumerate() {
                        set_lane(&mut dst[c], lane, x);
                    }
                }
            }
        }
    }
}

#[inline]
fn set_lane(v: &mut Vec4, lane: usize, x: f32) {
    let mut a = v.to_array();
    a[lane] = x;
    *v = Vec4::from_array(a);
}
