//! Motion matching's viewport debug draw: the desired trajectory (the simulated
//! character's future, cyan), the playing frame's own trajectory from the database
//! (orange), each with facing arrows, the foot features of the last search's query
//! (cyan) and of the frame it chose (orange), and the simulated point with a line to
//! the character (drift, red). World space; sizes scale with the leg length.

use glam::Vec3;

use super::overlay::{DepthTest, OverlayBatch, Rgba8};

/// Which parts to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchingOverlays {
    /// The desired trajectory (cyan) with facing arrows.
    pub desired: bool,
    /// The playing frame's trajectory from the database (orange) with facing arrows.
    pub matched: bool,
    /// Foot features of the last search's query (cyan) and of the frame it chose (orange).
    pub features: bool,
    /// The simulated point and a red line from the character's root to it.
    pub drift: bool,
}

impl Default for MatchingOverlays {
    fn default() -> Self {
        Self {
            desired: true,
            matched: true,
            features: true,
            drift: true,
        }
    }
}

/// A trajectory point: ground position (y ignored) and yaw (radians, 0 faces +Z).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathPoint {
    /// Position on the ground, world space, metres (drawn slightly above y = 0).
    pub position: Vec3,
    /// Facing, radians about +Y (0 faces +Z).
    pub yaw: f32,
}

/// One frame's motion-matching geometry, world space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchingDraw {
    /// From the simulated point now into the future.
    pub desired: Vec<PathPoint>,
    /// From the character now along the playing frame's trajectory.
    pub matched: Vec<PathPoint>,
    /// Foot positions of the last search's query, world space, metres (cyan points).
    pub query_feet: Vec<Vec3>,
    /// Foot positions of the frame the search chose, world space, metres (orange points).
    pub match_feet: Vec<Vec3>,
    /// The simulated character's position, world space, metres (drawn on the ground).
    pub sim: Vec3,
    /// The character's root position, world space, metres (drawn on the ground).
    pub root: Vec3,
    /// Mean leg length (units).
    pub leg_length: f32,
}

/// The desired trajectory and the query's foot features.
pub const DESIRED_CYAN: Rgba8 = Rgba8::rgb(70, 220, 240);
/// The matched trajectory and the chosen frame's foot features.
pub const MATCHED_ORANGE: Rgba8 = Rgba8::rgb(255, 150, 40);
/// The simulated point and its drift line.
pub const DRIFT_RED: Rgba8 = Rgba8::rgb(240, 70, 70);

impl OverlayBatch {
    /// Appends the motion-matching debug draw.
    pub fn matching(&mut self, d: &MatchingDraw, flags: &MatchingOverlays) {
        let leg = if d.leg_length > 0.0 && d.leg_length.is_finite() {
            d.leg_length
        } else {
            1.0
        };
        let lift = |p: Vec3, h: f32| Vec3::new(p.x, h, p.z);
        let top = DepthTest::OnTop;
        let path = |points: &[PathPoint], color: Rgba8, h: f32, batch: &mut OverlayBatch| {
            let line: Vec<Vec3> = points.iter().map(|p| lift(p.position, h)).collect();
            batch.polyline(&line, color, top);
            for p in points.iter().skip(1) {
                let at = lift(p.position, h);
                let dir = Vec3::new(p.yaw.sin(), 0.0, p.yaw.cos());
                batch.point(at, 7.0, color, top);
                batch.arrow(at, at + dir * (0.3 * leg), 0.08 * leg, color, top);
            }
        };
        if flags.desired && d.desired.len() >= 2 {
            path(&d.desired, DESIRED_CYAN, 0.02 * leg, self);
        }
        if flags.matched && d.matched.len() >= 2 {
            path(&d.matched, MATCHED_ORANGE, 0.04 * leg, self);
        }
        if flags.features {
            for p in &d.query_feet {
                self.point(*p, 10.0, DESIRED_CYAN, top);
            }
            for p in &d.match_feet {
                self.point(*p, 6.0, MATCHED_ORANGE, top);
            }
        }
        if flags.drift {
            let (sim, root) = (lift(d.sim, 0.01 * leg), lift(d.root, 0.01 * leg));
            self.point(sim, 9.0, DRIFT_RED, top);
            self.line(root, sim, DRIFT_RED, top);
        }
    }
}
