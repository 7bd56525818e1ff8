//! The demo's mesh: tapered capsules and ellipsoids with smooth normals and blended
//! skin weights at the joints.

use super::*;

/// Skinned triangle mesh in bind-pose model space.
#[derive(Default)]
pub(super) struct MeshData {
    pub(super) positions: Vec<DVec3>,
    pub(super) normals: Vec<DVec3>,
    pub(super) joints: Vec<[u8; 4]>,
    pub(super) weights: Vec<[f32; 4]>,
    pub(super) indices: Vec<u32>,
}

/// A cross-section of a loft: an ellipse `center + u cos φ + w sin φ`, or a single
/// point (a pole) when `u` and `w` are zero. `u × w` points along the loft.
#[derive(Clone, Copy)]
pub(super) struct Ring {
    pub(super) center: DVec3,
    pub(super) u: DVec3,
    pub(super) w: DVec3,
}

impl Ring {
    pub(super) fn is_pole(&self) -> bool {
        self.u == DVec3::ZERO && self.w == DVec3::ZERO
    }
}

/// Bone weights of a point, any scale.
pub(super) type Influences = Vec<(usize, f64)>;

impl MeshData {
    /// Adds a closed lofted surface with smooth normals. `floor` clamps it to y >= 0
    /// (a flat sole).
    pub(super) fn loft(
        &mut self,
        rings: &[Ring],
        segments: usize,
        floor: bool,
        weights: &dyn Fn(DVec3) -> Influences,
    ) {
        let base = self.positions.len();
        let mut ring_start = Vec::with_capacity(rings.len());
        for ring in rings {
            ring_start.push(self.positions.len() - base);
            let count = if ring.is_pole() { 1 } else { segments };
            for j in 0..count {
                let (s, c) = sin_cos(TAU * j as f64 / segments as f64);
                let mut p = ring.center + ring.u * c + ring.w * s;
                if floor {
                    p.y = p.y.max(0.0);
                }
                self.positions.push(p);
            }
        }
        let mut tris: Vec<[usize; 3]> = Vec::new();
        for i in 0..rings.len() - 1 {
            let (a, b) = (ring_start[i], ring_start[i + 1]);
            for j in 0..segments {
                let j1 = (j + 1) % segments;
                match (rings[i].is_pole(), rings[i + 1].is_pole()) {
                    (true, false) => tris.push([a, b + j1, b + j]),
                    (false, true) => tris.push([a + j, a + j1, b]),
                    (false, false) => {
                        tris.push([a + j, a + j1, b + j]);
                        tris.push([a + j1, b + j1, b + j]);
                    }
                    (true, true) => {}
                }
            }
        }
        let count = self.positions.len() - base;
        let mut normals = vec![DVec3::ZERO; count];
        for t in &tris {
            let p = t.map(|k| self.positions[base + k]);
            let n = (p[1] - p[0]).cross(p[2] - p[0]);
            for &k in t {
                normals[k] += n;
            }
        }
        self.normals
            .extend(normals.iter().map(|n| n.normalize_or(DVec3::Y)));
        for k in 0..count {
            let (joints, w) = pack_influences(weights(self.positions[base + k]));
            self.joints.push(joints);
            self.weights.push(w);
        }
        self.indices
            .extend(tris.iter().flatten().map(|&k| (base + k) as u32));
    }
}

/// The four largest influences, normalised so the stored `f32` weights sum to 1; unused
/// slots are joint 0 with weight 0.
pub(super) fn pack_influences(mut list: Influences) -> ([u8; 4], [f32; 4]) {
    list.retain(|&(_, w)| w > 0.0);
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut merged: Influences = Vec::new();
    for (j, w) in list {
        match merged.iter_mut().find(|m| m.0 == j) {
            Some(m) => m.1 += w,
            None => merged.push((j, w)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged.truncate(4);
    let total: f64 = merged.iter().map(|m| m.1).sum();
    merged.retain(|m| m.1 / total >= 0.01);
    let total: f64 = merged.iter().map(|m| m.1).sum();
    let mut joints = [0u8; 4];
    let mut weights = [0f32; 4];
    for (k, &(j, w)) in merged.iter().enumerate() {
        joints[k] = j as u8;
        weights[k] = (w / total) as f32;
    }
    weights[0] = 1.0 - (weights[1] + weights[2] + weights[3]);
    (joints, weights)
}

/// Vertical blend along a chain of bones: `bones[k]` owns the band between boundary
/// `k - 1` and boundary `k` (heights with half-widths of the blend zone).
pub(super) fn chain_weights(y: f64, bones: &[usize], bounds: &[(f64, f64)]) -> Influences {
    let s: Vec<f64> = bounds
        .iter()
        .map(|&(b, d)| smoothstep(b - d, b + d, y))
        .collect();
    let mut out = Vec::with_capacity(bones.len());
    for (k, &bone) in bones.iter().enumerate() {
        let below = if k == 0 { 1.0 } else { s[k - 1] };
        let above = if k < s.len() { s[k] } else { 0.0 };
        out.push((bone, (below - above).max(0.0)));
    }
    out
}

/// Torso chain weights (pelvis up to head).
pub(super) fn spine_weights(p: DVec3) -> Influences {
    chain_weights(
        p.y,
        &[PELVIS, SPINE_01, SPINE_02, SPINE_03, NECK, HEAD],
        &[
            (1.06, 0.05),
            (1.19, 0.05),
            (1.33, 0.06),
            (1.49, 0.04),
            (1.6, 0.03),
        ],
    )
}

/// Weights along the bone `bone` from `a` to `b`, blending into `prev` around `a` and
/// into `next` around `b` (each with the half-width of its blend zone).
pub(super) fn limb_weights(
    p: DVec3,
    a: DVec3,
    b: DVec3,
    bone: usize,
    prev: Option<(usize, f64)>,
    next: Option<(usize, f64)>,
) -> Influences {
    let len = (b - a).length();
    let x = (p - a).dot((b - a) / len);
    let sa = prev.map_or(1.0, |(_, d)| smoothstep(-d, d, x));
    let sb = next.map_or(0.0, |(_, d)| smoothstep(-d, d, x - len));
    let mut out = vec![(bone, sa * (1.0 - sb))];
    if let Some((j, _)) = prev {
        out.push((j, 1.0 - sa));
    }
    if let Some((j, _)) = next {
        out.push((j, sa * sb));
    }
    out
}

/// Rings of a tapered capsule from `a` to `b` (hemispherical caps, radius `ra` to `rb`
/// plus a muscle `bulge` peaking at fraction `bulge_at`), cross-section scaled by
/// `squash` (along `u_hint`, across).
#[allow(clippy::too_many_arguments)]
pub(super) fn capsule(
    a: DVec3,
    b: DVec3,
    ra: f64,
    rb: f64,
    bulge: (f64, f64),
    squash: (f64, f64),
    u_hint: DVec3,
    rings: (usize, usize),
) -> Vec<Ring> {
    let (body_rings, cap_rings) = rings;
    let len = (b - a).length();
    let axis = (b - a) / len;
    let u = (u_hint - axis * axis.dot(u_hint)).normalize() * squash.0;
    let w = axis.cross(u.normalize()) * squash.1;
    let ring = |z: f64, r: f64| Ring {
        center: a + axis * z,
        u: u * r,
        w: w * r,
    };
    let mut out = Vec::new();
    for k in 0..cap_rings {
        let (s, c) = sin_cos(FRAC_PI_2 * k as f64 / cap_rings as f64);
        out.push(ring(-ra * c, ra * s));
    }
    for k in 0..=body_rings {
        let t = k as f64 / body_rings as f64;
        out.push(ring(
            t * len,
            ra + (rb - ra) * t + bulge.0 * hump(t, bulge.1),
        ));
    }
    for k in 1..=cap_rings {
        let (s, c) = sin_cos(FRAC_PI_2 * k as f64 / cap_rings as f64);
        out.push(ring(len + rb * s, rb * c));
    }
    // Exact poles (no round-off radius).
    if let Some(first) = out.first_mut() {
        first.u = DVec3::ZERO;
        first.w = DVec3::ZERO;
    }
    if let Some(last) = out.last_mut() {
        last.u = DVec3::ZERO;
        last.w = DVec3::ZERO;
    }
    out
}

/// Rings of an axis-aligned ellipsoid, bottom to top.
pub(super) fn ellipsoid(center: DVec3, radii: DVec3, rings: usize) -> Vec<Ring> {
    (0..=rings)
        .map(|k| {
            let (s, c) = sin_cos(PI * k as f64 / rings as f64);
            let s = if k == 0 || k == rings { 0.0 } else { s };
            Ring {
                center: center + DVec3::Y * (-radii.y * c),
                u: DVec3::X * (radii.x * s),
                w: DVec3::NEG_Z * (radii.z * s),
            }
        })
        .collect()
}

pub(super) fn build_mesh(rig: &Rig) -> MeshData {
    let b = |j: usize| rig.bind[j];
    let mut mesh = MeshData::default();
    let spine = |p: DVec3| spine_weights(p);

    // Head with a nose (it shows which way the character faces), neck, torso.
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 1.70, 0.012),
            DVec3::new(0.092, 0.115, 0.104),
            16,
        ),
        22,
        false,
        &spine,
    );
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 1.685, 0.108),
            DVec3::new(0.016, 0.026, 0.022),
            6,
        ),
        8,
        false,
        &|_| vec![(HEAD, 1.0)],
    );
    mesh.loft(
        &capsule(
            DVec3::new(0.0, 1.46, -0.005),
            DVec3::new(0.0, 1.63, 0.01),
            0.052,
            0.046,
            (0.0, 0.5),
            (1.0, 1.0),
            DVec3::X,
            (4, 3),
        ),
        16,
        false,
        &spine,
    );
    // Chest: shoulders follow the clavicles.
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 1.355, -0.005),
            DVec3::new(0.168, 0.165, 0.106),
            14,
        ),
        26,
        false,
        &|p| {
            let mut w = spine_weights(p);
            let side = if p.x >= 0.0 { 0 } else { 1 };
            let clavicle = 0.7 * smoothstep(0.09, 0.16, p.x.abs()) * smoothstep(1.30, 1.42, p.y);
            for e in &mut w {
                e.1 *= 1.0 - clavicle;
            }
            w.push((ARMS[side][0], clavicle));
            w
        },
    );
    mesh.loft(
        &ellipsoid(DVec3::new(0.0, 1.17, 0.0), DVec3::new(0.15, 0.15, 0.1), 12),
        26,
        false,
        &spine,
    );
    // Hips: the lower sides follow the thighs.
    mesh.loft(
        &ellipsoid(
            DVec3::new(0.0, 0.955, -0.008),
            DVec3::new(0.168, 0.135, 0.112),
            12,
        ),
        26,
        false,
        &|p| {
            let mut w = spine_weights(p);
            let side = if p.x >= 0.0 { 0 } else { 1 };
            let thigh = 0.6 * smoothstep(0.04, 0.12, p.x.abs()) * smoothstep(0.97, 0.85, p.y);
            for e in &mut w {
                e.1 *= 1.0 - thigh;
            }
            w.push((LEGS[side][0], thigh));
            w
        },
    );

    for side in 0..2 {
        let sign = SIDE_SIGN[side];
        let [clavicle, upper, lower, hand] = ARMS[side];
        let [thigh, calf, foot, toe] = LEGS[side];
        // Shoulder cap over the clavicle.
        let (ca, cb) = (
            DVec3::new(sign * 0.09, 1.44, -0.005),
            DVec3::new(sign * 0.19, 1.43, -0.01),
        );
        mesh.loft(
            &capsule(
                ca,
                cb,
                0.05,
                0.056,
                (0.0, 0.5),
                (1.0, 1.0),
                DVec3::Y,
                (3, 4),
            ),
            14,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(clavicle),
                    b(upper),
                    clavicle,
                    Some((SPINE_03, 0.03)),
                    Some((upper, 0.04)),
                )
            },
        );
        mesh.loft(
            &capsule(
                b(upper),
                b(lower),
                0.05,
                0.04,
                (0.006, 0.35),
                (1.0, 1.0),
                DVec3::X,
                (8, 4),
            ),
            14,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(upper),
                    b(lower),
                    upper,
                    Some((clavicle, 0.05)),
                    Some((lower, 0.04)),
                )
            },
        );
        mesh.loft(
            &capsule(
                b(lower),
                b(hand),
                0.041,
                0.03,
                (0.007, 0.25),
                (1.0, 1.0),
                DVec3::X,
                (8, 4),
            ),
            12,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(lower),
                    b(hand),
                    lower,
                    Some((upper, 0.04)),
                    Some((hand, 0.03)),
                )
            },
        );
        let hand_dir = (b(hand) - b(lower)).normalize();
        mesh.loft(
            &capsule(
                b(hand),
                b(hand) + hand_dir * 0.15,
                0.042,
                0.036,
                (0.004, 0.3),
                (0.5, 1.0),
                DVec3::X,
                (5, 3),
            ),
            12,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(hand),
                    b(hand) + hand_dir * 0.15,
                    hand,
                    Some((lower, 0.025)),
                    None,
                )
            },
        );
        mesh.loft(
            &capsule(
                b(thigh),
                b(calf),
                0.088,
                0.058,
                (0.012, 0.3),
                (1.0, 1.0),
                DVec3::X,
                (10, 4),
            ),
            18,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(thigh),
                    b(calf),
                    thigh,
                    Some((PELVIS, 0.06)),
                    Some((calf, 0.05)),
                )
            },
        );
        mesh.loft(
            &capsule(
                b(calf),
                b(foot),
                0.056,
                0.036,
                (0.014, 0.3),
                (1.0, 1.0),
                DVec3::X,
                (10, 4),
            ),
            16,
            false,
            &|p| {
                limb_weights(
                    p,
                    b(calf),
                    b(foot),
                    calf,
                    Some((thigh, 0.05)),
                    Some((foot, 0.035)),
                )
            },
        );
        // Foot, heel to toe tip, with a flat sole; bends at the ball (toe joint).
        let x = b(foot).x;
        let section = |z: f64, cy: f64, half_width: f64, half_height: f64| Ring {
            center: DVec3::new(x, cy, z),
            u: DVec3::X * half_width,
            w: DVec3::Y * half_height,
        };
        let pole = |z: f64, cy: f64| section(z, cy, 0.0, 0.0);
        let foot_rings = [
            pole(-0.095, 0.045),
            section(-0.088, 0.045, 0.022, 0.03),
            section(-0.075, 0.047, 0.035, 0.045),
            section(-0.05, 0.052, 0.042, 0.055),
            section(-0.015, 0.056, 0.045, 0.064),
            section(0.03, 0.05, 0.047, 0.058),
            section(0.075, 0.042, 0.049, 0.048),
            section(0.115, 0.036, 0.05, 0.04),
            section(0.15, 0.03, 0.049, 0.033),
            section(0.185, 0.025, 0.045, 0.026),
            section(0.215, 0.021, 0.036, 0.02),
            section(0.232, 0.019, 0.02, 0.012),
            pole(0.238, 0.019),
        ];
        let ball_z = b(toe).z;
        mesh.loft(&foot_rings, 16, true, &|p| {
            let mut w = chain_weights(p.z, &[foot, toe], &[(ball_z, 0.03)]);
            let shin = 0.5 * smoothstep(0.095, 0.135, p.y) * smoothstep(0.04, -0.02, p.z);
            for e in &mut w {
                e.1 *= 1.0 - shin;
            }
            w.push((calf, shin));
            w
        });
    }
    mesh
}
