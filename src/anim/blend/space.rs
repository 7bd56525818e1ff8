//! Blend spaces: turn a parameter (a speed, or a 2D velocity) into one weight per sample
//! clip (SPEC section 4). The weights feed `BlendingJob`; the clips themselves are sampled
//! elsewhere, cycle-synced with [`crate::sync::cycle_sync_rates`].
//!
//! * [`BlendSpace1D`]: samples on one axis (e.g. forward speed in m/s: Idle 0, Walk 1.2,
//!   Run 3.5). A query interpolates its two neighbours linearly and clamps to the end
//!   samples outside the range.
//! * [`BlendSpace2D`]: samples in a plane (typically `(sideways speed, forward speed)` in
//!   m/s). The points are Delaunay-triangulated once (with `spade`); a query inside a
//!   triangle gets the barycentric weights of its three corners, a query outside the convex
//!   hull is first moved to the closest hull point. Weights are never negative and sum to 1.
//!
//! Queries never allocate: everything they need (sorted order, triangles, hull edges, thin
//! flags) is precomputed by the constructors. A linear scan over the triangles is used: a
//! blend space has tens of samples, and a scan has no failure modes near edges.

use std::collections::HashSet;

use glam::{DVec2, Vec2};
use spade::{DelaunayTriangulation, HasPosition, Triangulation};

use crate::AnimError;

// ---------------------------------------------------------------------------------------
// 1D

/// Samples on one parameter axis (units are the caller's, e.g. m/s).
#[derive(Clone, Debug, PartialEq)]
pub struct BlendSpace1D {
    /// As given (sample order = weight order).
    positions: Vec<f32>,
    /// Sample indices sorted by position, ascending.
    order: Vec<usize>,
}

impl BlendSpace1D {
    /// Builds a 1D blend space from one position per sample, in any order (the weights
    /// written by [`BlendSpace1D::weights`] follow this order).
    ///
    /// Errors: [`AnimError::Empty`] for no positions, [`AnimError::NonFinite`] for NaN or
    /// infinite positions, [`AnimError::OutOfRange`] for two samples at the same position
    /// (their weights would be undefined).
    pub fn new(positions: &[f32]) -> Result<Self, AnimError> {
        if positions.is_empty() {
            return Err(AnimError::Empty {
                what: "1D blend space positions".into(),
            });
        }
        if let Some(i) = positions.iter().position(|p| !p.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("1D blend space position {i}"),
            });
        }
        let mut order: Vec<usize> = (0..positions.len()).collect();
        order.sort_by(|&a, &b| positions[a].total_cmp(&positions[b]));
        for pair in order.windows(2) {
            // `==` rather than total order so that 0.0 and -0.0 count as duplicates.
            if positions[pair[0]] == positions[pair[1]] {
                return Err(AnimError::OutOfRange {
                    what: "1D blend space positions".into(),
                    detail: format!(
                        "samples {} and {} are both at {}",
                        pair[0].min(pair[1]),
                        pair[0].max(pair[1]),
                        positions[pair[0]]
                    ),
                });
            }
        }
        Ok(Self {
            positions: positions.to_vec(),
            order,
        })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Always `false`: construction rejects an empty space.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Sample positions in the order given to [`BlendSpace1D::new`].
    pub fn positions(&self) -> &[f32] {
        &self.positions
    }

    /// Writes one weight per sample (same order as given) for the parameter `x`: the two
    /// samples around `x` get `1 - t` and `t` (linear in `x`), every other sample exactly
    /// 0. Below the smallest / above the largest position the end sample gets exactly 1.
    /// At a sample position that sample gets exactly 1.
    ///
    /// Errors: `out.len() != len()` ([`AnimError::LengthMismatch`]), non-finite `x`.
    pub fn weights(&self, x: f32, out: &mut [f32]) -> Result<(), AnimError> {
        if out.len() != self.positions.len() {
            return Err(AnimError::LengthMismatch {
                what: "1D blend space weights",
                expected: self.positions.len(),
                actual: out.len(),
            });
        }
        if !x.is_finite() {
            return Err(AnimError::NonFinite {
                what: "1D blend space query".into(),
            });
        }
        out.fill(0.0);
        let first = self.order[0];
        let last = self.order[self.order.len() - 1];
        if x <= self.positions[first] {
            out[first] = 1.0;
            return Ok(());
        }
        if x >= self.positions[last] {
            out[last] = 1.0;
            return Ok(());
        }
        // First sorted sample strictly above x; it exists and is not the first one, because
        // positions[first] < x < positions[last].
        let hi = self.order.partition_point(|&i| self.positions[i] <= x);
        let (a, b) = (self.order[hi - 1], self.order[hi]);
        // f64 so that t is as exact as the f32 inputs allow.
        let (pa, pb) = (self.positions[a] as f64, self.positions[b] as f64);
        let t = (x as f64 - pa) / (pb - pa);
        out[a] = (1.0 - t) as f32;
        out[b] = t as f32;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// 2D

/// Triangles whose smallest interior angle is below this many degrees are flagged as thin
/// ([`BlendSpace2D::thin_triangles`], [`BlendSpace2DQuery::thin`]).
///
/// Why 15: across a triangle the weights change at a rate of about 1 / (height of the
/// triangle), and a triangle with smallest angle `a` has a height of at most
/// `longest edge * tan(a)`; below 15 degrees that is under 0.27 of its edge, so parameter
/// noise is amplified more than 3.7x compared to the edge length. Mesh-quality tools use
/// similar thresholds (10 to 20 degrees) for slivers.
pub const THIN_TRIANGLE_MIN_ANGLE_DEG: f32 = 15.0;

/// Normalised barycentric weights down to this (negative) value still count as "in the
/// triangle": they only come from f64 rounding for a query on an edge, and are clamped to
/// 0. Anything further out is projected onto the hull.
const BARYCENTRIC_EPS: f64 = 1e-9;

/// Distance (relative to the segment layout's length, at least 1 unit) within which a
/// query counts as lying on a collinear layout (`inside == true`).
const SEGMENT_INSIDE_REL_TOL: f64 = 1e-6;

/// A vertex inserted into spade, carrying the sample's index so that triangles can be
/// mapped back to samples without relying on spade's handle numbering.
struct SpadeSample {
    position: spade::Point2<f64>,
    index: usize,
}

impl HasPosition for SpadeSample {
    type Scalar = f64;
    fn position(&self) -> spade::Point2<f64> {
        self.position
    }
}

/// How the samples are laid out; decides how a query is answered.
#[derive(Clone, Debug, PartialEq)]
enum Layout {
    /// One sample: it always gets weight 1.
    Single,
    /// Two samples, or all samples on one line: interpolation along the polyline.
    Segment {
        /// Start of the line (one extreme sample) and its unit direction.
        origin: DVec2,
        dir: DVec2,
        /// Sample indices sorted along `dir`, and their coordinates along it (ascending).
        order: Vec<usize>,
        params: Vec<f64>,
    },
    /// At least one triangle: barycentric weights.
    Triangulated,
}

/// One convex-hull edge, counter-clockwise (the hull interior is on its left), with the
/// triangle it belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
struct HullEdge {
    a: usize,
    b: usize,
    triangle: usize,
}

/// Samples in a plane, typically `(sideways speed, forward speed)` in m/s, Delaunay
/// triangulated once at construction.
///
/// Degenerate layouts are supported and documented per query:
/// * 1 point: it gets weight 1 for every query.
/// * 2 points, or all points collinear (no triangle exists): the query is projected onto
///   the line through the samples and clamped to its end samples (the closest point of the
///   polyline), then the two neighbouring samples along the line are interpolated linearly,
///   as in [`BlendSpace1D`]. [`BlendSpace2D::triangles`] is empty then.
#[derive(Clone, Debug, PartialEq)]
pub struct BlendSpace2D {
    points: Vec<Vec2>,
    layout: Layout,
    /// Counter-clockwise sample-index triples.
    triangles: Vec<[usize; 3]>,
    /// Per triangle: smallest angle under [`THIN_TRIANGLE_MIN_ANGLE_DEG`].
    thin: Vec<bool>,
    hull: Vec<HullEdge>,
}

/// What [`BlendSpace2D::weights`] did with a query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendSpace2DQuery {
    /// The point the weights reproduce: the query itself when inside, otherwise the
    /// closest point of the convex hull (or of the segment, for collinear layouts).
    pub projected: Vec2,
    /// The query lay inside (or on the boundary of) the triangulated area, so no
    /// projection was needed. For a collinear layout: the query lay on the segment
    /// (within 1e-6 of its length); for a single sample: the query equals it.
    pub inside: bool,
    /// Sample indices of the triangle used (counter-clockwise). For a collinear layout
    /// `[a, b, b]` with `a`, `b` the two interpolated samples (`a == b` when clamped to an
    /// end); for a single sample `[0, 0, 0]`.
    pub corners: [usize; 3],
    /// The triangle used is flagged thin (always `false` for degenerate layouts).
    pub thin: bool,
}

impl BlendSpace2D {
    /// Triangulates `points` (one per sample; weights follow this order).
    ///
    /// Errors: [`AnimError::Empty`] for no points, [`AnimError::NonFinite`] for NaN or
    /// infinite coordinates, [`AnimError::OutOfRange`] for two equal points or coordinates
    /// spade cannot triangulate (magnitudes beyond about 1e20 or below about 1e-19).
    pub fn new(points: &[Vec2]) -> Result<Self, AnimError> {
        if points.is_empty() {
            return Err(AnimError::Empty {
                what: "2D blend space points".into(),
            });
        }
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            return Err(AnimError::NonFinite {
                what: format!("2D blend space point {i}"),
            });
        }
        for i in 0..points.len() {
            for j in i + 1..points.len() {
                // `==` so that -0.0 and 0.0 are duplicates too.
                if points[i] == points[j] {
                    return Err(AnimError::OutOfRange {
                        what: "2D blend space points".into(),
                        detail: format!("points {i} and {j} are both at {}", points[i]),
                    });
                }
            }
        }
        let mut space = Self {
            points: points.to_vec(),
            layout: Layout::Single,
            triangles: Vec::new(),
            thin: Vec::new(),
            hull: Vec::new(),
        };
        if points.len() == 1 {
            return Ok(space);
        }

        let mut dt: DelaunayTriangulation<SpadeSample> = DelaunayTriangulation::new();
        for (index, p) in points.iter().enumerate() {
            dt.insert(SpadeSample {
                position: spade::Point2::new(p.x as f64, p.y as f64),
                index,
            })
            .map_err(|e| AnimError::OutOfRange {
                what: format!("2D blend space point {index}"),
                detail: format!("cannot be triangulated ({e:?}): {p}"),
            })?;
        }
        for face in dt.inner_faces() {
            let [a, b, c] = face.vertices().map(|v| v.data().index);
            let (pa, pb, pc) = (space.p(a), space.p(b), space.p(c));
            // spade's faces are counter-clockwise; re-check so the edge functions below
            // never depend on that convention.
            let tri = if (pb - pa).perp_dot(pc - pa) >= 0.0 {
                [a, b, c]
            } else {
                [a, c, b]
            };
            space
                .thin
                .push(smallest_angle_deg(pa, pb, pc) < THIN_TRIANGLE_MIN_ANGLE_DEG as f64);
            space.triangles.push(tri);
        }

        if space.triangles.is_empty() {
            space.layout = segment_layout(&space.points);
            return Ok(space);
        }
        space.layout = Layout::Triangulated;
        // A directed triangle edge whose reverse belongs to no triangle is on the hull
        // (collinear samples on the hull split it into several edges, which is fine).
        let directed: HashSet<(usize, usize)> = space
            .triangles
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .collect();
        for (ti, t) in space.triangles.iter().enumerate() {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                if !directed.contains(&(b, a)) {
                    space.hull.push(HullEdge { a, b, triangle: ti });
                }
            }
        }
        Ok(space)
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always `false`: construction rejects an empty space.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Sample points in the order given to [`BlendSpace2D::new`].
    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// The Delaunay triangles as counter-clockwise sample-index triples (for the UI to
    /// draw). Empty for 1 point and collinear layouts.
    pub fn triangles(&self) -> &[[usize; 3]] {
        &self.triangles
    }

    /// Triangles whose smallest angle is under [`THIN_TRIANGLE_MIN_ANGLE_DEG`]: inside them
    /// small parameter changes swing the weights a lot. Allocates; meant for UI and lint.
    pub fn thin_triangles(&self) -> Vec<[usize; 3]> {
        self.triangles
            .iter()
            .zip(&self.thin)
            .filter(|(_, &thin)| thin)
            .map(|(t, _)| *t)
            .collect()
    }

    /// Writes one weight per sample for the query `q` (same order as the points): the
    /// barycentric weights of the triangle containing `q` on its three corners, every other
    /// sample exactly 0. The weights are never negative and sum to 1 (to f32 rounding), and
    /// `sum w_i * p_i` reproduces `q`. On an edge shared by two triangles, the corners off
    /// the edge get 0 from either side, so weights are continuous across it. Outside the
    /// convex hull, `q` is first moved to the closest hull point (returned as
    /// [`BlendSpace2DQuery::projected`]); only that edge's two samples get weight then.
    /// See [`BlendSpace2D`] for 1 point and collinear layouts. Does not allocate.
    ///
    /// Errors: `out.len() != len()` ([`AnimError::LengthMismatch`]), non-finite `q`.
    pub fn weights(&self, q: Vec2, out: &mut [f32]) -> Result<BlendSpace2DQuery, AnimError> {
        if out.len() != self.points.len() {
            return Err(AnimError::LengthMismatch {
                what: "2D blend space weights",
                expected: self.points.len(),
                actual: out.len(),
            });
        }
        if !q.is_finite() {
            return Err(AnimError::NonFinite {
                what: "2D blend space query".into(),
            });
        }
        out.fill(0.0);
        match &self.layout {
            Layout::Single => {
                out[0] = 1.0;
                Ok(BlendSpace2DQuery {
                    projected: self.points[0],
                    inside: q == self.points[0],
                    corners: [0; 3],
                    thin: false,
                })
            }
            Layout::Segment {
                origin,
                dir,
                order,
                params,
            } => Ok(self.segment_weights(q, *origin, *dir, order, params, out)),
            Layout::Triangulated => Ok(self.triangle_weights(q, out)),
        }
    }

    fn p(&self, i: usize) -> DVec2 {
        self.points[i].as_dvec2()
    }

    fn segment_weights(
        &self,
        q: Vec2,
        origin: DVec2,
        dir: DVec2,
        order: &[usize],
        params: &[f64],
        out: &mut [f32],
    ) -> BlendSpace2DQuery {
        let d = q.as_dvec2() - origin;
        let s = d.dot(dir);
        let (s_min, s_max) = (params[0], params[params.len() - 1]);
        let tol = SEGMENT_INSIDE_REL_TOL * (s_max - s_min).max(1.0);
        let inside = d.perp_dot(dir).abs() <= tol && s >= s_min - tol && s <= s_max + tol;
        let (a, b, t) = if s <= s_min {
            (order[0], order[0], 0.0)
        } else if s >= s_max {
            let last = order[order.len() - 1];
            (last, last, 0.0)
        } else {
            let hi = params.partition_point(|&p| p <= s);
            let t = (s - params[hi - 1]) / (params[hi] - params[hi - 1]);
            (order[hi - 1], order[hi], t)
        };
        let projected = if a == b {
            out[a] = 1.0;
            self.points[a]
        } else {
            out[a] = (1.0 - t) as f32;
            out[b] = t as f32;
            self.p(a).lerp(self.p(b), t).as_vec2()
        };
        BlendSpace2DQuery {
            projected,
            inside,
            corners: [a, b, b],
            thin: false,
        }
    }

    fn triangle_weights(&self, q: Vec2, out: &mut [f32]) -> BlendSpace2DQuery {
        let qd = q.as_dvec2();
        // The triangle whose smallest normalised barycentric weight is largest contains q
        // (that weight is >= 0) or, if none does, is the nearest miss.
        let mut best = (f64::NEG_INFINITY, 0usize, [0.0f64; 3]);
        for (ti, t) in self.triangles.iter().enumerate() {
            // Edge function of the edge opposite each corner, always computed as
            // cross(from - q, to - q) so the two triangles sharing an edge get exactly
            // negated values: no query can slip between them.
            let (pa, pb, pc) = (self.p(t[0]) - qd, self.p(t[1]) - qd, self.p(t[2]) - qd);
            let e = [pb.perp_dot(pc), pc.perp_dot(pa), pa.perp_dot(pb)];
            let sum = e[0] + e[1] + e[2];
            if sum <= 0.0 {
                continue;
            }
            let min = e[0].min(e[1]).min(e[2]) / sum;
            if min > best.0 {
                best = (min, ti, e);
            }
        }
        let (min, ti, e) = best;
        if min >= -BARYCENTRIC_EPS {
            let t = self.triangles[ti];
            let e = e.map(|v| v.max(0.0));
            let sum = e[0] + e[1] + e[2];
            let mut projected = DVec2::ZERO;
            for (&corner, &ek) in t.iter().zip(&e) {
                let w = ek / sum;
                out[corner] = w as f32;
                projected += w * self.p(corner);
            }
            return BlendSpace2DQuery {
                projected: if min >= 0.0 { q } else { projected.as_vec2() },
                inside: min >= 0.0,
                corners: t,
                thin: self.thin[ti],
            };
        }

        // Outside the hull: the closest point of the closest hull edge.
        let mut closest = (f64::INFINITY, 0usize, 0.0f64);
        for (hi, h) in self.hull.iter().enumerate() {
            let (pa, pb) = (self.p(h.a), self.p(h.b));
            let ab = pb - pa;
            let t = ((qd - pa).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
            let dist2 = (pa + ab * t - qd).length_squared();
            if dist2 < closest.0 {
                closest = (dist2, hi, t);
            }
        }
        let (_, hi, t) = closest;
        let h = self.hull[hi];
        out[h.a] = (1.0 - t) as f32;
        out[h.b] = t as f32;
        BlendSpace2DQuery {
            projected: self.p(h.a).lerp(self.p(h.b), t).as_vec2(),
            inside: false,
            corners: self.triangles[h.triangle],
            thin: self.thin[h.triangle],
        }
    }
}

/// Smallest interior angle of a triangle, in degrees (0 for a degenerate one).
fn smallest_angle_deg(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    let angle = |p: DVec2, u: DVec2, v: DVec2| (u - p).angle_to(v - p).abs();
    let m = angle(a, b, c).min(angle(b, c, a)).min(angle(c, a, b));
    if m.is_finite() {
        m.to_degrees()
    } else {
        0.0
    }
}

/// Line parametrisation of collinear (or two) points: from one extreme sample to the
/// other, samples sorted along it.
fn segment_layout(points: &[Vec2]) -> Layout {
    let p = |i: usize| points[i].as_dvec2();
    // The sample farthest from sample 0 is an extreme of the line; the one farthest from
    // that is the other extreme.
    let farthest = |from: DVec2| {
        (0..points.len())
            .max_by(|&i, &j| {
                p(i).distance_squared(from)
                    .total_cmp(&p(j).distance_squared(from))
            })
            .unwrap_or(0)
    };
    let e1 = farthest(p(0));
    let e2 = farthest(p(e1));
    let origin = p(e1);
    // Points are distinct, so e1 != e2 and the direction is well defined.
    let dir = (p(e2) - origin).normalize_or_zero();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&i, &j| {
        (p(i) - origin)
            .dot(dir)
            .total_cmp(&(p(j) - origin).dot(dir))
    });
    let params = order.iter().map(|&i| (p(i) - origin).dot(dir)).collect();
    Layout::Segment {
        origin,
        dir,
        order,
        params,
    }
}
