//! 1D and 2D blend spaces (SPEC section 4): weights with values known in advance.

use glam::Vec2;
use stridescope::anim::blend::space::{
    BlendSpace1D, BlendSpace2D, BlendSpace2DQuery, THIN_TRIANGLE_MIN_ANGLE_DEG,
};
use stridescope::anim::AnimError;

/// Sentinel pre-filled into outputs so unwritten entries show.
const SENTINEL: f32 = -7.0;

fn w1(space: &BlendSpace1D, x: f32) -> Vec<f32> {
    let mut out = vec![SENTINEL; space.len()];
    space.weights(x, &mut out).unwrap();
    out
}

fn w2(space: &BlendSpace2D, q: Vec2) -> (Vec<f32>, BlendSpace2DQuery) {
    let mut out = vec![SENTINEL; space.len()];
    let info = space.weights(q, &mut out).unwrap();
    (out, info)
}

fn reproduce(space: &BlendSpace2D, w: &[f32]) -> Vec2 {
    space.points().iter().zip(w).map(|(p, &w)| *p * w).sum()
}

// ---------------------------------------------------------------------------------------
// 1D

/// Samples Idle 0, Walk 1.2, Run 3.5 given scrambled: index 0 = Run, 1 = Idle, 2 = Walk.
fn speeds() -> BlendSpace1D {
    BlendSpace1D::new(&[3.5, 0.0, 1.2]).unwrap()
}

#[test]
fn one_d_interpolates_the_two_neighbours() {
    let s = speeds();
    assert_eq!(s.len(), 3);
    assert_eq!(s.positions(), &[3.5, 0.0, 1.2]);
    let w = w1(&s, 2.35);
    assert!((w[0] - 0.5).abs() < 1e-6, "{w:?}");
    assert!((w[2] - 0.5).abs() < 1e-6, "{w:?}");
    assert_eq!(w[1].to_bits(), 0.0f32.to_bits(), "Idle must be exactly +0");
    // 0.3 is a quarter of the way from Idle (0) to Walk (1.2).
    let w = w1(&s, 0.3);
    assert!(
        (w[1] - 0.75).abs() < 1e-6 && (w[2] - 0.25).abs() < 1e-6,
        "{w:?}"
    );
    assert_eq!(w[0], 0.0);
}

#[test]
fn one_d_is_exact_at_samples_and_clamps_outside() {
    let s = speeds();
    for (x, i) in [
        (0.0, 1),
        (1.2, 2),
        (3.5, 0),
        (-4.0, 1),
        (-0.001, 1),
        (9.0, 0),
        (3.51, 0),
    ] {
        let w = w1(&s, x);
        for (j, &wj) in w.iter().enumerate() {
            let expected = if j == i { 1.0f32 } else { 0.0 };
            assert_eq!(wj.to_bits(), expected.to_bits(), "x = {x}: {w:?}");
        }
    }
    let single = BlendSpace1D::new(&[2.0]).unwrap();
    assert_eq!(w1(&single, -5.0), vec![1.0]);
    assert_eq!(w1(&single, 5.0), vec![1.0]);
}

#[test]
fn one_d_weights_are_linear_and_sum_to_one() {
    let s = speeds();
    for k in 0..=400 {
        let x = -0.5 + 4.5 * k as f32 / 400.0;
        let w = w1(&s, x);
        assert!(w.iter().all(|&v| v >= 0.0), "x = {x}: {w:?}");
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6, "x = {x}: {w:?}");
        let speed: f32 = w.iter().zip(s.positions()).map(|(w, p)| w * p).sum();
        assert!((speed - x.clamp(0.0, 3.5)).abs() < 1e-5, "x = {x}: {speed}");
    }
}

#[test]
fn one_d_rejects_bad_input() {
    assert!(matches!(
        BlendSpace1D::new(&[]),
        Err(AnimError::Empty { .. })
    ));
    assert!(matches!(
        BlendSpace1D::new(&[0.0, f32::NAN]),
        Err(AnimError::NonFinite { .. })
    ));
    assert!(matches!(
        BlendSpace1D::new(&[0.0, f32::INFINITY]),
        Err(AnimError::NonFinite { .. })
    ));
    assert!(matches!(
        BlendSpace1D::new(&[1.2, 0.0, 1.2]),
        Err(AnimError::OutOfRange { .. })
    ));
    assert!(matches!(
        BlendSpace1D::new(&[0.0, -0.0]),
        Err(AnimError::OutOfRange { .. })
    ));
    let s = speeds();
    let mut short = [SENTINEL; 2];
    assert_eq!(
        s.weights(1.0, &mut short),
        Err(AnimError::LengthMismatch {
            what: "1D blend space weights",
            expected: 3,
            actual: 2
        })
    );
    assert_eq!(short, [SENTINEL; 2], "nothing written on error");
    let mut out = [SENTINEL; 3];
    assert!(matches!(
        s.weights(f32::NAN, &mut out),
        Err(AnimError::NonFinite { .. })
    ));
    assert_eq!(out, [SENTINEL; 3]);
}

// ---------------------------------------------------------------------------------------
// 2D

const A: Vec2 = Vec2::new(0.0, 0.0);
const B: Vec2 = Vec2::new(1.0, 0.0);
const C: Vec2 = Vec2::new(0.0, 1.0);

#[test]
fn two_d_spec_barycentric_weights() {
    let s = BlendSpace2D::new(&[A, B, C]).unwrap();
    assert_eq!(s.triangles().len(), 1);
    let q = Vec2::new(0.2, 0.3);
    let (w, info) = w2(&s, q);
    assert!((w[0] - 0.5).abs() < 1e-6, "{w:?}");
    assert!((w[1] - 0.2).abs() < 1e-6, "{w:?}");
    assert!((w[2] - 0.3).abs() < 1e-6, "{w:?}");
    assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    assert!((reproduce(&s, &w) - q).length() < 1e-6);
    assert!(info.inside);
    assert_eq!(info.projected, q);
    let mut corners = info.corners;
    corners.sort();
    assert_eq!(corners, [0, 1, 2]);
    assert!(!info.thin);
    // At a corner: exactly 1 there, exactly 0 elsewhere.
    let (w, _) = w2(&s, B);
    assert_eq!(w, vec![0.0, 1.0, 0.0]);
}

/// The unit square (cocircular, so either diagonal is Delaunay): approach the shared
/// diagonal from both sides; the corners off it go to 0 and the weights do not jump.
#[test]
fn two_d_is_continuous_across_a_shared_edge() {
    let pts = [A, B, Vec2::new(1.0, 1.0), C];
    let s = BlendSpace2D::new(&pts).unwrap();
    let tris = s.triangles();
    assert_eq!(tris.len(), 2);
    // The shared edge: the two corners both triangles have.
    let shared: Vec<usize> = tris[0]
        .iter()
        .copied()
        .filter(|i| tris[1].contains(i))
        .collect();
    assert_eq!(shared.len(), 2);
    let off: Vec<usize> = (0..4).filter(|i| !shared.contains(i)).collect();
    let (p, r) = (pts[shared[0]], pts[shared[1]]);
    let normal = (r - p).perp().normalize();
    let mut worst_jump = 0.0f32;
    for k in 1..10 {
        let on_edge = p.lerp(r, k as f32 / 10.0);
        let (w_on, info) = w2(&s, on_edge);
        assert!(info.inside);
        for &o in &off {
            assert!(
                w_on[o].abs() < 1e-6,
                "third corner {o} on the edge: {w_on:?}"
            );
        }
        for eps in [1e-3f32, 1e-4, 1e-5] {
            let (wa, ia) = w2(&s, on_edge + normal * eps);
            let (wb, ib) = w2(&s, on_edge - normal * eps);
            assert_ne!(
                ia.corners, ib.corners,
                "both sides must use different triangles"
            );
            let jump = wa
                .iter()
                .zip(&wb)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            if eps == 1e-5 {
                worst_jump = worst_jump.max(jump);
            }
            // The off-edge corner of each side is proportional to the distance.
            for &o in &off {
                assert!(wa[o] <= 2.0 * eps * 1.5 && wb[o] <= 2.0 * eps * 1.5);
            }
        }
    }
    assert!(
        worst_jump < 1e-4,
        "weights jump by {worst_jump} across the edge at 1e-5"
    );
    // Exactly on the edge, any tiny step gives a jump under 1e-5.
    let mid = p.lerp(r, 0.5);
    let (wa, _) = w2(&s, mid + normal * 1e-6);
    let (wb, _) = w2(&s, mid - normal * 1e-6);
    let jump = wa
        .iter()
        .zip(&wb)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(jump < 1e-5, "jump {jump}");
}

#[test]
fn two_d_projects_outside_queries_onto_the_hull() {
    let s = BlendSpace2D::new(&[A, B, C]).unwrap();
    let (w, info) = w2(&s, Vec2::new(2.0, 2.0));
    assert!(!info.inside);
    assert!(
        (info.projected - Vec2::new(0.5, 0.5)).length() < 1e-6,
        "{info:?}"
    );
    assert!((w[0]).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6 && (w[2] - 0.5).abs() < 1e-6);
    assert_eq!(w[0], 0.0, "the corner off the hull edge is exactly 0");
    // Beyond a corner: the corner itself.
    let (w, info) = w2(&s, Vec2::new(-1.0, -2.0));
    assert_eq!(w, vec![1.0, 0.0, 0.0]);
    assert_eq!(info.projected, A);
    // Below edge AB: straight down onto it.
    let (w, info) = w2(&s, Vec2::new(0.25, -3.0));
    assert!((info.projected - Vec2::new(0.25, 0.0)).length() < 1e-6);
    assert!((w[0] - 0.75).abs() < 1e-6 && (w[1] - 0.25).abs() < 1e-6 && w[2] == 0.0);
    // Sweep a ring around the triangle: never negative, sums to 1, reproduces the
    // projection, and the projection is the closest point (checked by brute force).
    for k in 0..720 {
        let a = k as f32 / 720.0 * std::f32::consts::TAU;
        let q = Vec2::new(0.3, 0.3) + Vec2::from_angle(a) * 2.5;
        let (w, info) = w2(&s, q);
        assert!(!info.inside);
        assert!(w.iter().all(|&v| v >= 0.0), "{q}: {w:?}");
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((reproduce(&s, &w) - info.projected).length() < 1e-5);
        let best = brute_closest_on_triangle(q, [A, B, C]);
        assert!(
            (info.projected.distance(q) - best).abs() < 1e-5,
            "{q}: projected {} at {}, closest {best}",
            info.projected,
            info.projected.distance(q)
        );
    }
}

fn brute_closest_on_triangle(q: Vec2, t: [Vec2; 3]) -> f32 {
    let mut best = f32::INFINITY;
    for i in 0..3 {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        for k in 0..=10000 {
            best = best.min(a.lerp(b, k as f32 / 10000.0).distance(q));
        }
    }
    best
}

#[test]
fn two_d_flags_thin_triangles() {
    assert_eq!(THIN_TRIANGLE_MIN_ANGLE_DEG, 15.0);
    let sliver = BlendSpace2D::new(&[A, B, Vec2::new(0.5, 0.02)]).unwrap();
    assert_eq!(sliver.thin_triangles().len(), 1);
    let (_, info) = w2(&sliver, Vec2::new(0.5, 0.01));
    assert!(info.thin && info.inside);
    let fat = BlendSpace2D::new(&[A, B, C]).unwrap();
    assert!(fat.thin_triangles().is_empty());
    assert!(!w2(&fat, Vec2::new(0.2, 0.2)).1.thin);
    // Angles of 16 and 14 degrees at the base: either side of the threshold.
    for (deg, thin) in [(16.0f32, false), (14.0, true)] {
        let apex = Vec2::new(0.5, 0.5 * deg.to_radians().tan());
        let s = BlendSpace2D::new(&[A, B, apex]).unwrap();
        assert_eq!(!s.thin_triangles().is_empty(), thin, "{deg} deg");
    }
}

/// Idle in the centre; forward, back, left and right walks in (sideways, forward) m/s.
#[test]
fn two_d_locomotion_layout_covers_the_plane() {
    let pts = [
        Vec2::new(0.0, 0.0),
        Vec2::new(0.0, 1.4),
        Vec2::new(0.0, -1.0),
        Vec2::new(-1.1, 0.0),
        Vec2::new(1.1, 0.0),
    ];
    let s = BlendSpace2D::new(&pts).unwrap();
    assert_eq!(s.triangles().len(), 4);
    assert!(s.thin_triangles().is_empty());
    for t in s.triangles() {
        assert!(t.contains(&0), "every triangle uses Idle: {t:?}");
    }
    let (w, info) = w2(&s, Vec2::ZERO);
    assert_eq!(w, vec![1.0, 0.0, 0.0, 0.0, 0.0]);
    assert!(info.inside);
    // Halfway to forward.
    let (w, _) = w2(&s, Vec2::new(0.0, 0.7));
    assert!(
        (w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6,
        "{w:?}"
    );
    // Grid sweep over [-2, 2]^2 m/s.
    let mut inside_count = 0;
    for i in 0..=80 {
        for j in 0..=80 {
            let q = Vec2::new(-2.0 + i as f32 * 0.05, -2.0 + j as f32 * 0.05);
            let (w, info) = w2(&s, q);
            assert!(w.iter().all(|&v| (0.0..=1.0).contains(&v)), "{q}: {w:?}");
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{q}: {w:?}");
            assert!((reproduce(&s, &w) - info.projected).length() < 1e-5, "{q}");
            assert!(w.iter().filter(|&&v| v > 0.0).count() <= 3, "{q}: {w:?}");
            // The diamond's interior, computed independently of the triangulation.
            let diamond = q.x.abs() / 1.1 + if q.y >= 0.0 { q.y / 1.4 } else { -q.y / 1.0 };
            if diamond < 1.0 - 1e-5 {
                assert!(info.inside, "{q}");
                assert_eq!(info.projected, q);
                inside_count += 1;
            } else if diamond > 1.0 + 1e-5 {
                assert!(!info.inside, "{q}");
            }
        }
    }
    assert!(inside_count > 500, "{inside_count}");
}

#[test]
fn two_d_degenerate_layouts() {
    // One point: weight 1 everywhere.
    let one = BlendSpace2D::new(&[Vec2::new(0.5, 0.5)]).unwrap();
    assert!(one.triangles().is_empty());
    let (w, info) = w2(&one, Vec2::new(3.0, -1.0));
    assert_eq!(w, vec![1.0]);
    assert!(!info.inside);
    assert_eq!(info.projected, Vec2::new(0.5, 0.5));
    assert!(w2(&one, Vec2::new(0.5, 0.5)).1.inside);

    // Two points: projection onto the segment.
    let two = BlendSpace2D::new(&[Vec2::new(0.0, 1.0), Vec2::new(0.0, 3.0)]).unwrap();
    assert!(two.triangles().is_empty());
    let (w, info) = w2(&two, Vec2::new(5.0, 1.5));
    assert!(
        (w[0] - 0.75).abs() < 1e-6 && (w[1] - 0.25).abs() < 1e-6,
        "{w:?}"
    );
    assert!((info.projected - Vec2::new(0.0, 1.5)).length() < 1e-6);
    assert!(!info.inside);
    let (w, info) = w2(&two, Vec2::new(0.0, 2.0));
    assert!((w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6 && info.inside);
    let (w, info) = w2(&two, Vec2::new(1.0, 10.0));
    assert_eq!(w, vec![0.0, 1.0]);
    assert_eq!(info.projected, Vec2::new(0.0, 3.0));

    // Collinear, scrambled along a diagonal: (2,2), (0,0), (3,3), (1,1).
    let line = [
        Vec2::new(2.0, 2.0),
        Vec2::new(0.0, 0.0),
        Vec2::new(3.0, 3.0),
        Vec2::new(1.0, 1.0),
    ];
    let col = BlendSpace2D::new(&line).unwrap();
    assert!(col.triangles().is_empty() && col.thin_triangles().is_empty());
    // (2.5, 2.5) + a perpendicular offset projects to (2.5, 2.5): half samples 0 and 2.
    let (w, info) = w2(&col, Vec2::new(2.5 - 0.3, 2.5 + 0.3));
    assert!(
        (w[0] - 0.5).abs() < 1e-6 && (w[2] - 0.5).abs() < 1e-6,
        "{w:?}"
    );
    assert_eq!((w[1], w[3]), (0.0, 0.0));
    assert!((info.projected - Vec2::new(2.5, 2.5)).length() < 1e-6);
    let mut c = info.corners;
    c.sort();
    assert_eq!(c, [0, 2, 2]);
    // (0.25, 0.25): 3/4 sample 1, 1/4 sample 3.
    let (w, info) = w2(&col, Vec2::new(0.25, 0.25));
    assert!(
        (w[1] - 0.75).abs() < 1e-6 && (w[3] - 0.25).abs() < 1e-6,
        "{w:?}"
    );
    assert!(info.inside);
    // Past the ends: clamped to the end samples.
    assert_eq!(w2(&col, Vec2::new(-1.0, -3.0)).0, vec![0.0, 1.0, 0.0, 0.0]);
    assert_eq!(w2(&col, Vec2::new(9.0, 4.0)).0, vec![0.0, 0.0, 1.0, 0.0]);
}

#[test]
fn two_d_rejects_bad_input() {
    assert!(matches!(
        BlendSpace2D::new(&[]),
        Err(AnimError::Empty { .. })
    ));
    assert!(matches!(
        BlendSpace2D::new(&[A, Vec2::new(f32::NAN, 0.0)]),
        Err(AnimError::NonFinite { .. })
    ));
    assert!(matches!(
        BlendSpace2D::new(&[A, Vec2::new(0.0, f32::NEG_INFINITY)]),
        Err(AnimError::NonFinite { .. })
    ));
    assert!(matches!(
        BlendSpace2D::new(&[A, B, C, B]),
        Err(AnimError::OutOfRange { .. })
    ));
    let s = BlendSpace2D::new(&[A, B, C]).unwrap();
    let mut out = [SENTINEL; 4];
    assert!(matches!(
        s.weights(Vec2::ZERO, &mut out),
        Err(AnimError::LengthMismatch {
            expected: 3,
            actual: 4,
            ..
        })
    ));
    let mut out = [SENTINEL; 3];
    assert!(matches!(
        s.weights(Vec2::new(0.1, f32::NAN), &mut out),
        Err(AnimError::NonFinite { .. })
    ));
    assert_eq!(out, [SENTINEL; 3], "nothing written on error");
}
