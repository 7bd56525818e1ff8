//! Structure-of-arrays poses: four joints per [`SoaTransform`], each component of the four
//! in one SIMD vector (like ozz-animation's `SoaTransform`).
//!
//! The pose pipeline's hot path ([`SoaSamplingJob`](crate::SoaSamplingJob) ->
//! [`SoaBlendingJob`](crate::blend::soa::SoaBlendingJob) ->
//! [`SoaLocalToModelJob`](crate::SoaLocalToModelJob)) works on these: every
//! interpolation, blend and quaternion-to-matrix step runs on four joints with vertical
//! SIMD operations only, without the shuffles a per-joint `Vec3`/`Quat` layout needs.
//! Each SoA job gives, for every joint, the same bits as its per-joint [`Transform`]
//! counterpart (`tests/soa_pipeline.rs`, `tests/sampling.rs`), so the pose graph samples
//! and blends in blocks while per-joint callers see identical poses.
//!
//! Joint `j` is lane `j % 4` of block `j / 4`. A pose of `n` joints has
//! [`soa_len`]`(n)` blocks; the lanes past `n` in the last block are padding: packing
//! and sampling write the identity there, a blend writes its blend of the inputs'
//! padding, and no job reads them.

use glam::{Quat, Vec3, Vec4};

use super::{AnimError, Transform};

/// Four joint transforms, component by component: lane `i` of every vector belongs to
/// the block's joint `i`. Units and spaces as in [`Transform`] (metres, parent space).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct SoaTransform {
    /// x, y and z of the four translations.
    pub translation: [Vec4; 3],
    /// x, y, z and w of the four rotations (unit quaternions).
    pub rotation: [Vec4; 4],
    /// x, y and z of the four scales.
    pub scale: [Vec4; 3],
}

const _: () = assert!(std::mem::size_of::<SoaTransform>() == 160);

impl SoaTransform {
    /// Four identity transforms.
    pub const IDENTITY: SoaTransform = SoaTransform {
        translation: [Vec4::ZERO; 3],
        rotation: [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE],
        scale: [Vec4::ONE; 3],
    };

    /// The transform of lane `lane` (0..4).
    #[inline]
    pub fn lane(&self, lane: usize) -> Transform {
        let c = |v: &Vec4| v.to_array()[lane];
        Transform {
            translation: Vec3::new(
                c(&self.translation[0]),
                c(&self.translation[1]),
                c(&self.translation[2]),
            ),
            rotation: Quat::from_xyzw(
                c(&self.rotation[0]),
                c(&self.rotation[1]),
                c(&self.rotation[2]),
                c(&self.rotation[3]),
            ),
            scale: Vec3::new(c(&self.scale[0]), c(&self.scale[1]), c(&self.scale[2])),
        }
    }

    /// Sets lane `lane` (0..4) to `t`.
    #[inline]
    pub fn set_lane(&mut self, lane: usize, t: &Transform) {
        let set = |v: &mut Vec4, x: f32| {
            let mut a = v.to_array();
            a[lane] = x;
            *v = Vec4::from_array(a);
        };
        set(&mut self.translation[0], t.translation.x);
        set(&mut self.translation[1], t.translation.y);
        set(&mut self.translation[2], t.translation.z);
        set(&mut self.rotation[0], t.rotation.x);
        set(&mut self.rotation[1], t.rotation.y);
        set(&mut self.rotation[2], t.rotation.z);
        set(&mut self.rotation[3], t.rotation.w);
        set(&mut self.scale[0], t.scale.x);
        set(&mut self.scale[1], t.scale.y);
        set(&mut self.scale[2], t.scale.z);
    }
}

/// Number of [`SoaTransform`] blocks that hold `joint_count` joints.
#[inline]
pub const fn soa_len(joint_count: usize) -> usize {
    joint_count.div_ceil(4)
}

/// Packs a per-joint pose into blocks; padding lanes become the identity.
/// `output.len()` must be [`soa_len`]`(pose.len())`.
pub fn soa_from_transforms(
    pose: &[Transform],
    output: &mut [SoaTransform],
) -> Result<(), AnimError> {
    if output.len() != soa_len(pose.len()) {
        return Err(AnimError::LengthMismatch {
            what: "SoA pose",
            expected: soa_len(pose.len()),
            actual: output.len(),
        });
    }
    for (block, out) in pose.chunks(4).zip(output.iter_mut()) {
        *out = pack_block(block);
    }
    Ok(())
}

/// Packs up to four joints into a block; missing lanes are the identity.
#[inline]
pub fn pack_block(joints: &[Transform]) -> SoaTransform {
    let [a, b, c, d] = match *joints {
        [a, b, c, d] => [a, b, c, d],
        _ => {
            // A partial block: padding lanes are the identity.
            let mut four = [Transform::IDENTITY; 4];
            let n = joints.len().min(4);
            four[..n].copy_from_slice(&joints[..n]);
            four
        }
    };
    // Three 4x4 transposes (SIMD shuffles): the lanes' vectors become the components'.
    let components = |v: [Vec4; 4]| glam::Mat4::from_cols(v[0], v[1], v[2], v[3]).transpose();
    let t = components([a, b, c, d].map(|x| x.translation.extend(0.0)));
    let r = components([a, b, c, d].map(|x| Vec4::from(x.rotation)));
    let s = components([a, b, c, d].map(|x| x.scale.extend(1.0)));
    SoaTransform {
        translation: [t.x_axis, t.y_axis, t.z_axis],
        rotation: [r.x_axis, r.y_axis, r.z_axis, r.w_axis],
        scale: [s.x_axis, s.y_axis, s.z_axis],
    }
}

/// Unpacks a block into `joints` (its first `joints.len()` lanes, at most four), bit for
/// bit, with three transposes instead of lane-by-lane extraction.
#[inline]
pub fn unpack_block(block: &SoaTransform, joints: &mut [Transform]) {
    let lanes = |v: [Vec4; 4]| glam::Mat4::from_cols(v[0], v[1], v[2], v[3]).transpose();
    let [tx, ty, tz] = block.translation;
    let [sx, sy, sz] = block.scale;
    let t = lanes([tx, ty, tz, Vec4::ZERO]);
    let r = lanes(block.rotation);
    let s = lanes([sx, sy, sz, Vec4::ZERO]);
    let four = [
        (t.x_axis, r.x_axis, s.x_axis),
        (t.y_axis, r.y_axis, s.y_axis),
        (t.z_axis, r.z_axis, s.z_axis),
        (t.w_axis, r.w_axis, s.w_axis),
    ];
    for (out, (t, r, s)) in joints.iter_mut().zip(four) {
        *out = Transform {
            translation: t.truncate(),
            rotation: Quat::from_vec4(r),
            scale: s.truncate(),
        };
    }
}

/// Unpacks blocks into a per-joint pose of `output.len()` joints (padding lanes are
/// dropped). `pose.len()` must be [`soa_len`]`(output.len())`.
pub fn transforms_from_soa(
    pose: &[SoaTransform],
    output: &mut [Transform],
) -> Result<(), AnimError> {
    if pose.len() != soa_len(output.len()) {
        return Err(AnimError::LengthMismatch {
            what: "SoA pose",
            expected: soa_len(output.len()),
            actual: pose.len(),
        });
    }
    for (block, out) in pose.iter().zip(output.chunks_mut(4)) {
        unpack_block(block, out);
    }
    Ok(())
}

/// A per-joint pose packed into a new vector of blocks.
pub fn to_soa(pose: &[Transform]) -> Vec<SoaTransform> {
    let mut out = vec![SoaTransform::IDENTITY; soa_len(pose.len())];
    soa_from_transforms(pose, &mut out).expect("sized by soa_len");
    out
}

/// A pose in blocks unpacked per joint on demand, at most once until [`Self::reset`],
/// through `&self`: a producer that keeps its output in blocks (the pose graph, the
/// stage's `Pose`) hands out a per-joint view only to callers that ask for one, and a
/// frame drawn from the blocks never unpacks. Thread-safe (the library view shares poses
/// between workers); the buffer is kept between resets, so unpacking allocates nothing.
#[derive(Debug, Default)]
pub struct LazyTransforms {
    view: std::sync::OnceLock<Vec<Transform>>,
    spare: std::sync::Mutex<Vec<Transform>>,
}

impl Clone for LazyTransforms {
    fn clone(&self) -> Self {
        Self {
            view: self.view.clone(),
            spare: Default::default(),
        }
    }
}

impl LazyTransforms {
    /// `pose` unpacked into `n` joints: computed on the first call since [`Self::reset`],
    /// the same slice after. `pose` must be the blocks of `n` joints
    /// ([`soa_len`]`(n)` of them); other lengths give the identity pose.
    pub fn get(&self, pose: &[SoaTransform], n: usize) -> &[Transform] {
        self.view.get_or_init(|| {
            let mut out = match self.spare.lock() {
                Ok(mut spare) => std::mem::take(&mut *spare),
                Err(_) => Vec::new(),
            };
            out.clear();
            out.resize(n, Transform::IDENTITY);
            if transforms_from_soa(pose, &mut out).is_err() {
                out.fill(Transform::IDENTITY);
            }
            out
        })
    }

    /// Forgets the unpacked pose (the blocks are about to change), keeping its buffer.
    pub fn reset(&mut self) {
        if let Some(old) = self.view.take() {
            if let Ok(spare) = self.spare.get_mut() {
                *spare = old;
            }
        }
    }
}

/// A local pose held in blocks of four joints, or per joint once a per-joint step (a
/// layer, the inertialization, a per-joint sampler) wrote it; the per-joint view of a pose
/// in blocks is unpacked only when asked for ([`LazyTransforms`]). The pose graph and the
/// stage's `Pose` keep their output in one, so a frame that is sampled, blended and placed
/// in blocks never packs or unpacks.
#[derive(Clone, Debug)]
pub struct SoaPose {
    blocks: Vec<SoaTransform>,
    joints: Vec<Transform>,
    /// `joints` is the pose (a per-joint step wrote it last); `blocks` may be stale.
    per_joint: bool,
    unpacked: LazyTransforms,
}

impl SoaPose {
    /// `pose`, held per joint (and packed).
    pub fn new(pose: &[Transform]) -> Self {
        Self {
            blocks: to_soa(pose),
            joints: pose.to_vec(),
            per_joint: true,
            unpacked: LazyTransforms::default(),
        }
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// True for a pose of no joints.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// The pose per joint (unpacked on the first call since the blocks were written).
    pub fn joints(&self) -> &[Transform] {
        if self.per_joint {
            &self.joints
        } else {
            self.unpacked.get(&self.blocks, self.joints.len())
        }
    }

    /// The pose in blocks, when it is held that way (no per-joint step wrote it since).
    pub fn blocks(&self) -> Option<&[SoaTransform]> {
        (!self.per_joint).then_some(&self.blocks[..])
    }

    /// The blocks, for a job that writes the whole pose in that layout.
    pub fn blocks_mut(&mut self) -> &mut [SoaTransform] {
        self.unpacked.reset();
        self.per_joint = false;
        &mut self.blocks
    }

    /// The per-joint buffer, for a step that writes the whole pose per joint (its length
    /// must stay [`Self::len`]).
    pub fn joints_mut(&mut self) -> &mut Vec<Transform> {
        self.per_joint = true;
        &mut self.joints
    }

    /// The per-joint buffer holding the current pose (the blocks unpacked into it when
    /// they hold the pose), for a step that changes it per joint.
    pub fn to_joints(&mut self) -> &mut Vec<Transform> {
        if !self.per_joint {
            // Both sized for the same joints: the lengths match.
            let _ = transforms_from_soa(&self.blocks, &mut self.joints);
            self.per_joint = true;
        }
        &mut self.joints
    }

    /// The pose in blocks, packed from the per-joint pose when that is what holds it.
    pub fn packed(&mut self) -> &[SoaTransform] {
        if self.per_joint {
            // Both sized for the same joints: the lengths match.
            let _ = soa_from_transforms(&self.joints, &mut self.blocks);
        }
        &self.blocks
    }
}
