//! The simulated character the matcher follows: a point on the ground whose velocity
//! and facing each chase a goal through a critically damped spring, so a key press or a
//! scripted change of direction gives a smooth, predictable trajectory.
//!
//! Velocity spring (goal `g`, damping `y = 2 ln 2 / half_life`, state `x, v, a`): with
//! `j0 = v - g` and `j1 = a + y j0`, after `t` seconds
//! `v(t) = g + e^{-yt} (j0 + j1 t)`, `a(t) = e^{-yt} (a - y j1 t)` and the position
//! is the integral of `v`: `x(t) = x + g t + j0 / y + j1 / y² - e^{-yt} (j0 / y + j1 / y² + j1 t / y)`.
//! The same closed form predicts the future trajectory exactly (the goal is held over
//! the prediction). Facing: the yaw offset to its goal (wrapped to ±π) decays the same
//! way as the inertializer's offsets.
//!
//! World space, Y up: positions are ground (x, z) in metres, yaw in radians about +Y
//! (0 faces +Z, positive turns towards +X).

use glam::Vec2;

/// Spring half-lives (seconds, > 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringSettings {
    /// Half-life (seconds, > 0) of the velocity's approach to its goal.
    pub velocity_half_life_secs: f32,
    /// Half-life (seconds, > 0) of the yaw's approach to its goal.
    pub facing_half_life_secs: f32,
}

impl Default for SpringSettings {
    fn default() -> Self {
        Self {
            velocity_half_life_secs: 0.27,
            facing_half_life_secs: 0.2,
        }
    }
}

/// A point of a trajectory, world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrajectoryPoint {
    /// Ground position (x, z), metres.
    pub position: Vec2,
    /// Yaw, radians.
    pub yaw: f32,
}

/// The simulated character.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringCharacter {
    /// Ground position (x, z), metres, world space.
    pub position: Vec2,
    /// Ground velocity (x, z), m/s, world space.
    pub velocity: Vec2,
    /// Ground acceleration (x, z), m/s², world space.
    pub acceleration: Vec2,
    /// Facing, radians about +Y (0 faces +Z); each update wraps it to (-π, π].
    pub yaw: f32,
    /// Rate of turn, radians per second about +Y.
    pub angular_velocity: f32,
    /// The springs' half-lives.
    pub settings: SpringSettings,
}

fn damping(half_life: f32) -> f32 {
    2.0 * std::f32::consts::LN_2 / half_life.max(1e-4)
}

/// Wraps an angle into (-π, π].
pub(super) fn wrap_angle(a: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let mut r = a.rem_euclid(tau);
    if r > std::f32::consts::PI {
        r -= tau;
    }
    r
}

impl SpringCharacter {
    /// A character at rest at `position` (ground x, z, metres) facing `yaw` (radians):
    /// zero velocity, acceleration and turn rate.
    pub fn new(position: Vec2, yaw: f32, settings: SpringSettings) -> Self {
        Self {
            position,
            velocity: Vec2::ZERO,
            acceleration: Vec2::ZERO,
            yaw,
            angular_velocity: 0.0,
            settings,
        }
    }

    /// The state `t` seconds on with the goals held (exact for any `t >= 0`).
    pub fn predict(&self, goal_velocity: Vec2, goal_yaw: f32, t: f32) -> SpringCharacter {
        let y = damping(self.settings.velocity_half_life_secs);
        let e = (-y * t).exp();
        let j0 = self.velocity - goal_velocity;
        let j1 = self.acceleration + j0 * y;
        let position = self.position + goal_velocity * t + j0 / y + j1 / (y * y)
            - e * (j0 / y + j1 / (y * y) + j1 * (t / y));
        let velocity = goal_velocity + e * (j0 + j1 * t);
        let acceleration = e * (self.acceleration - j1 * (y * t));
        let yf = damping(self.settings.facing_half_life_secs);
        let ef = (-yf * t).exp();
        let x = wrap_angle(self.yaw - goal_yaw);
        let jf = self.angular_velocity + yf * x;
        let yaw = wrap_angle(goal_yaw + ef * (x + jf * t));
        let angular_velocity = ef * (self.angular_velocity - jf * yf * t);
        SpringCharacter {
            position,
            velocity,
            acceleration,
            yaw,
            angular_velocity,
            settings: self.settings,
        }
    }

    /// Advances by `dt` seconds towards the goals.
    pub fn update(&mut self, goal_velocity: Vec2, goal_yaw: f32, dt: f32) {
        *self = self.predict(goal_velocity, goal_yaw, dt);
    }

    /// The trajectory `times` seconds ahead (world space).
    pub fn trajectory(
        &self,
        goal_velocity: Vec2,
        goal_yaw: f32,
        times: &[f32],
    ) -> Vec<TrajectoryPoint> {
        times
            .iter()
            .map(|&t| {
                let s = self.predict(goal_velocity, goal_yaw, t);
                TrajectoryPoint {
                    position: s.position,
                    yaw: s.yaw,
                }
            })
            .collect()
    }
}
