//! Runtime nodes: their weights, leaders and how their inputs follow the leader.

use super::*;

impl Node {
    pub(super) fn players(&self) -> &[usize] {
        match self {
            Node::Clip { player, .. } => std::slice::from_ref(player),
            Node::Blend { players, .. }
            | Node::Space1D { players, .. }
            | Node::Space2D { players, .. } => players,
        }
    }

    /// Computes this frame's normalised input weights from the parameters.
    pub(super) fn update_weights(&mut self, params: &Params) -> Result<(), AnimError> {
        match self {
            Node::Clip { .. } => {}
            Node::Blend { weights, norm, .. } => {
                let sum: f32 = weights
                    .iter()
                    .map(|w| weight_value(w, params).max(0.0))
                    .sum();
                for (n, w) in norm.iter_mut().zip(weights.iter()) {
                    *n = if sum > 0.0 {
                        weight_value(w, params).max(0.0) / sum
                    } else {
                        0.0
                    };
                }
                if sum <= 0.0 {
                    // All zero: the first input alone, rather than nothing.
                    norm[0] = 1.0;
                }
            }
            // A blend space's weights are a function of its parameters: recomputed only
            // when they changed (a played blend keeps them for many frames).
            Node::Space1D {
                space,
                param,
                norm,
                at,
                ..
            } => {
                let x = params.get_float(param).unwrap_or(0.0);
                if x != *at {
                    *at = f32::NAN;
                    space.weights(x, norm)?;
                    *at = x;
                }
            }
            Node::Space2D {
                space,
                params: (x, y),
                norm,
                query,
                at,
                ..
            } => {
                let q = glam::Vec2::new(
                    params.get_float(x).unwrap_or(0.0),
                    params.get_float(y).unwrap_or(0.0),
                );
                if q != *at {
                    *at = glam::Vec2::NAN;
                    *query = Some(space.weights(q, norm)?);
                    *at = q;
                }
            }
        }
        Ok(())
    }

    pub(super) fn norm(&self) -> &[f32] {
        match self {
            Node::Clip { .. } => &[1.0],
            Node::Blend { norm, .. } | Node::Space1D { norm, .. } | Node::Space2D { norm, .. } => {
                norm
            }
        }
    }

    pub(super) fn sync(&self) -> SyncMode {
        match self {
            Node::Clip { .. } => SyncMode::None,
            Node::Blend { sync, .. } | Node::Space1D { sync, .. } | Node::Space2D { sync, .. } => {
                *sync
            }
        }
    }

    pub(super) fn rate(&self) -> f64 {
        match self {
            Node::Clip { rate, .. } => *rate,
            _ => 1.0,
        }
    }

    /// Writes effective weights (`w` times the normalised input weight) into the players.
    pub(super) fn assign(&self, w: f32, players: &mut [ClipPlayer]) {
        for (&p, &n) in self.players().iter().zip(self.norm()) {
            players[p].weight = w * n;
        }
    }

    /// The input with the highest weight (the first on a tie).
    pub(super) fn leader(&self) -> usize {
        let mut best = 0;
        for (i, &n) in self.norm().iter().enumerate() {
            if n > self.norm()[best] {
                best = i;
            }
        }
        self.players()[best]
    }

    /// Plays `dt` seconds (times the global rate) with the node's sync.
    pub(super) fn advance(&self, dt: f64, players: &mut [ClipPlayer]) -> Result<(), AnimError> {
        let dt = dt * self.rate();
        match self.sync() {
            SyncMode::None => {
                for &p in self.players() {
                    players[p].advance(dt)?;
                }
            }
            SyncMode::Cycle => {
                let durations: Inline<f64> = self
                    .players()
                    .iter()
                    .map(|&p| players[p].duration_secs())
                    .collect();
                let weights: Inline<f64> = self.norm().iter().map(|&w| w as f64).collect();
                let loop_secs = sync::cycle_sync_loop_secs(&durations, &weights)
                    .unwrap_or_else(|_| durations.iter().sum::<f64>() / durations.len() as f64);
                for (&p, d) in self.players().iter().zip(&durations) {
                    let step = if loop_secs > 0.0 {
                        dt * d / loop_secs
                    } else {
                        dt
                    };
                    players[p].advance(step)?;
                }
            }
            SyncMode::Markers => {
                let leader = self.leader();
                players[leader].advance(dt)?;
                for &p in self.players() {
                    if p != leader {
                        let u = marker_phase(players, leader, p);
                        players[p].advance_to_phase(u)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Follows an outside leader (the other state of a cross-fade): this node's leader
    /// takes the marker-synced phase, the rest follow it with the node's own sync.
    pub(super) fn follow(
        &self,
        outside: usize,
        players: &mut [ClipPlayer],
        seek: bool,
    ) -> Result<(), AnimError> {
        let own = self.leader();
        let u = marker_phase(players, outside, own);
        let u_own = u - players[own].offset;
        for &p in self.players() {
            let target = match self.sync() {
                SyncMode::Markers if p != own => marker_phase(players, outside, p),
                _ => u_own + players[p].offset,
            };
            if seek {
                players[p].seek_phase(0, target)?;
            } else {
                players[p].advance_to_phase(target)?;
            }
        }
        Ok(())
    }

    /// Seeks every input to the normalised phase `u` (plus its offset).
    pub(super) fn seek(
        &self,
        cycle: i64,
        u: f64,
        players: &mut [ClipPlayer],
    ) -> Result<(), AnimError> {
        for &p in self.players() {
            let off = players[p].offset;
            players[p].seek_phase(cycle, u + off)?;
        }
        Ok(())
    }
}

/// The follower's normalised phase that matches the leader's markers (plus the follower's
/// offset); the leader's normalised phase when they share no markers.
pub(super) fn marker_phase(players: &[ClipPlayer], leader: usize, follower: usize) -> f64 {
    let (l, f) = (&players[leader], &players[follower]);
    // Takes of several steps sync per gait cycle (from where the follower is); loops
    // pair their markers.
    let base = sync::gait_sync_time(
        &l.sync_markers,
        l.duration_secs(),
        l.clock.time().phase_secs,
        &f.sync_markers,
        f.duration_secs(),
        f.clock.time().phase_secs,
    )
    .or_else(|| {
        sync::marker_sync_time(
            &l.sync_markers,
            l.duration_secs(),
            l.clock.time().phase_secs,
            &f.sync_markers,
            f.duration_secs(),
        )
    })
    .map(|t| {
        if f.duration_secs() > 0.0 {
            t / f.duration_secs()
        } else {
            0.0
        }
    })
    .unwrap_or_else(|| l.normalized() - l.offset);
    base + f.offset
}
