//! Moving the graph in time: weights from parameters, the state machine, sync, clocks
//! and root motion; seeks.

use super::*;

/// Where a clip with root motion starts on the ground (its root joint at time 0) and the
/// way its feet point then; `None` for layers, clips without root motion or toes.
pub(super) fn start_frame(
    model: &Model,
    legs: &[contacts::LegChain],
    p: &ClipPlayer,
) -> Option<GroundTransform> {
    if p.is_layer {
        return None;
    }
    let root = p.root.as_ref()?;
    let sk = &model.skeleton;
    let mut local = sk.rest_pose().to_vec();
    crate::anim::SamplingJob {
        clip: &model.clips[p.clip],
        time_secs: 0.0,
        rest_pose: sk.rest_pose(),
    }
    .run(&mut local)
    .ok()?;
    let mut m = vec![glam::Mat4::IDENTITY; sk.joint_count()];
    crate::anim::LocalToModelJob {
        parents: sk.parents(),
        local: &local,
        model_from_root: glam::Mat4::IDENTITY,
    }
    .run(&mut m)
    .ok()?;
    let forward: glam::Vec3 = legs
        .iter()
        .filter_map(|l| {
            let toe = l.toe?;
            let d = m.get(toe)?.w_axis.truncate() - m.get(l.foot)?.w_axis.truncate();
            Some(glam::Vec3::new(d.x, 0.0, d.z))
        })
        .sum();
    if forward.length_squared() <= f32::EPSILON {
        return None;
    }
    let at = m.get(root.source.joint)?.w_axis;
    Some(GroundTransform::new(
        f64::from(forward.x.atan2(forward.z)),
        glam::DVec2::new(f64::from(at.x), f64::from(at.z)),
    ))
}

impl PoseGraph {
    pub(super) fn assign_weights(&mut self) -> Result<(), AnimError> {
        for p in &mut self.players {
            p.weight = 0.0;
        }
        self.snapshot_weight = 0.0;
        match &mut self.base {
            Base::Node(n) => {
                n.update_weights(&self.params)?;
                n.assign(1.0, &mut self.players);
            }
            Base::Machine(m) => {
                for s in &mut m.states {
                    s.update_weights(&self.params)?;
                }
                for &(slot, w) in m.sm.weights() {
                    match slot {
                        Slot::State(s) => m.states[s].assign(w, &mut self.players),
                        Slot::Snapshot => self.snapshot_weight = w,
                    }
                }
            }
        }
        for l in &mut self.layers {
            l.current_weight = weight_value(&l.weight, &self.params).max(0.0);
            self.players[l.player].weight = l.current_weight;
        }
        Ok(())
    }

    /// Plays `dt_secs` of wall time (times the global rate): moves every clock with its
    /// sync, blends their root-motion deltas, runs the state machine, then evaluates the
    /// pose.
    pub fn advance(&mut self, model: &Model, dt_secs: f64) -> Result<(), AnimError> {
        if !dt_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "frame time".into(),
            });
        }
        let dt = dt_secs * self.rate;
        self.assign_weights()?;
        match &mut self.base {
            Base::Node(n) => n.advance(dt, &mut self.players)?,
            Base::Machine(m) => {
                // The heavier active state leads; with marker sync the other follows it.
                let active: Inline<(usize, f32)> =
                    m.sm.weights()
                        .iter()
                        .filter_map(|&(s, w)| match s {
                            Slot::State(i) => Some((i, w)),
                            Slot::Snapshot => None,
                        })
                        .collect();
                let lead =
                    active
                        .iter()
                        .copied()
                        .fold(None, |b: Option<(usize, f32)>, x| match b {
                            Some(b) if b.1 >= x.1 => Some(b),
                            _ => Some(x),
                        });
                if let Some((lead_state, _)) = lead {
                    m.states[lead_state].advance(dt, &mut self.players)?;
                    let leader_player = m.states[lead_state].leader();
                    for &(s, _) in &active {
                        if s != lead_state {
                            if m.sync == SyncMode::Markers {
                                m.states[s].follow(leader_player, &mut self.players, false)?;
                            } else {
                                m.states[s].advance(dt, &mut self.players)?;
                            }
                        }
                    }
                }
            }
        }
        for l in &self.layers {
            match l.hold_phase {
                Some(u) => self.players[l.player].seek_phase(0, u)?,
                None => self.players[l.player].advance(dt)?,
            }
        }
        // Root motion: the weighted sum of each input's own delta.
        let mut translation = DVec2::ZERO;
        let mut yaw = 0.0;
        for p in &self.players {
            if p.weight > 0.0 && !p.is_layer {
                translation += p.delta.translation * p.weight as f64;
                yaw += p.delta.yaw_rad * p.weight as f64;
            }
        }
        if self.snapshot_weight > 0.0 {
            let w = self.snapshot_weight as f64 * dt_secs.abs();
            translation += self.snapshot_velocity.translation * w;
            yaw += self.snapshot_velocity.yaw_rad * w;
        }
        self.root_delta = GroundTransform::new(yaw, translation);
        if dt_secs.abs() > 0.0 {
            self.last_dt = dt_secs.abs();
        }
        // Events of this frame, tagged with their state; then the state machine.
        self.events_len = 0;
        if let Base::Machine(m) = &mut self.base {
            // Names are borrowed from the clips' markers (no allocation per event).
            let mut events: Inline<FiredEvent> = Inline::new();
            for &(slot, _) in m.sm.weights() {
                if let Slot::State(s) = slot {
                    for &p in m.states[s].players() {
                        self.players[p].for_each_crossed(|name| {
                            if !events.iter().any(|e| e.source_state == s && e.name == name) {
                                events.push(FiredEvent {
                                    name,
                                    source_state: s,
                                });
                            }
                        });
                    }
                }
            }
            for e in &events {
                push_event(&mut self.events, &mut self.events_len, e.name);
            }
            let players = &self.players;
            let states = &m.states;
            let entered = &m.entered_cycles;
            let normalized = |s: usize| -> f32 {
                let p = &players[states[s].leader()];
                (p.cycles() - entered[s]) as f32
            };
            let report =
                m.sm.update(dt_secs.abs() as f32, &self.params, &normalized, &events);
            // The events borrow the players' marker names.
            drop(events);
            self.apply_step(report.entered, report.snapshot)?;
            self.inertia_jump = report.inertialize;
        } else {
            for p in &self.players {
                p.for_each_crossed(|name| push_event(&mut self.events, &mut self.events_len, name));
            }
        }
        self.inertia_dt = dt_secs.abs() as f32;
        // A state machine's step may have started or ended a fade: its weights are
        // assigned again. A node's come from the parameters, assigned above.
        let result = match self.base {
            Base::Machine(_) => self.evaluate(model),
            Base::Node(_) => self.evaluate_weighted(model),
        };
        self.inertia_dt = 0.0;
        self.inertia_jump = None;
        result
    }

    /// Forces a cross-fade of the state machine to `state` (UI state buttons, scenarios).
    pub fn travel(
        &mut self,
        model: &Model,
        state: &str,
        duration_secs: f32,
    ) -> Result<(), GraphError> {
        let Base::Machine(m) = &mut self.base else {
            return Err(GraphError::NoStateMachine);
        };
        let index =
            m.sm.state_index(state)
                .ok_or_else(|| GraphError::UnknownState {
                    state: state.to_string(),
                    states: (0..m.sm.state_count())
                        .map(|i| m.sm.state_name(i).to_string())
                        .collect(),
                })?;
        let report = m.sm.travel(index, duration_secs, Ease::Smoothstep);
        self.apply_step(report.entered, report.snapshot)?;
        self.evaluate(model).map_err(GraphError::from)
    }

    /// Reacts to a state-machine step: an interrupted fade freezes the current output
    /// pose; an entered state starts at the phase that matches the state it fades from.
    pub(super) fn apply_step(
        &mut self,
        entered: Option<usize>,
        snapshot: bool,
    ) -> Result<(), AnimError> {
        if snapshot {
            match self.local.blocks() {
                Some(blocks) => self.snapshot.copy_from_slice(blocks),
                None => soa_from_transforms(self.local.joints(), &mut self.snapshot)?,
            }
            for (frozen, now) in self.morph_snapshot.iter_mut().zip(&self.morph) {
                frozen.copy_from_slice(now);
            }
            let dt = self.last_dt.max(1e-6);
            self.snapshot_velocity = GroundTransform::new(
                self.root_delta.yaw_rad / dt,
                self.root_delta.translation / dt,
            );
        }
        let Base::Machine(m) = &mut self.base else {
            return Ok(());
        };
        if let Some(s) = entered {
            // Weights of the new state (its leader) before positioning it.
            m.states[s].update_weights(&self.params)?;
            let from =
                m.sm.weights()
                    .iter()
                    .filter_map(|&(slot, w)| match slot {
                        Slot::State(i) if i != s => Some((i, w)),
                        _ => None,
                    })
                    .fold(None, |b: Option<(usize, f32)>, x| match b {
                        Some(b) if b.1 >= x.1 => Some(b),
                        _ => Some(x),
                    });
            match (from, m.sync) {
                (Some((f, _)), SyncMode::Markers) => {
                    let leader = m.states[f].leader();
                    m.states[s].follow(leader, &mut self.players, true)?;
                }
                _ => m.states[s].seek(0, 0.0, &mut self.players)?,
            }
            let p = m.states[s].leader();
            m.entered_cycles[s] = self.players[p].cycles();
        }
        Ok(())
    }

    /// Moves every clock to the leader's clip time `leader_secs` (unwrapped seconds; the
    /// others to the matching phase) without root motion, then evaluates. A seek.
    pub fn seek(&mut self, model: &Model, leader_secs: f64) -> Result<(), AnimError> {
        self.assign_weights()?;
        let leader = self.leader_index();
        let d = self.players[leader].duration_secs();
        let (cycle, u) = if d > 0.0 {
            let c = (leader_secs / d).floor();
            (c as i64, leader_secs / d - c)
        } else {
            (0, 0.0)
        };
        let u = u - self.players[leader].offset;
        match &self.base {
            Base::Node(n) => n.seek(cycle, u, &mut self.players)?,
            Base::Machine(m) => {
                for (i, s) in m.states.iter().enumerate() {
                    if m.sm.weights().iter().any(|&(sl, _)| sl == Slot::State(i)) {
                        s.seek(cycle, u, &mut self.players)?;
                    }
                }
            }
        }
        for l in &self.layers {
            self.players[l.player].seek_phase(cycle, l.hold_phase.unwrap_or(u))?;
        }
        if let Base::Machine(m) = &mut self.base {
            for (i, s) in m.states.iter().enumerate() {
                m.entered_cycles[i] = self.players[s.leader()].cycles().min(m.entered_cycles[i]);
            }
        }
        self.root_delta = GroundTransform::IDENTITY;
        self.events_len = 0;
        // A seek shows the clips as they are: no offset carries over.
        self.inertia.reset(&[]);
        self.evaluate(model)
    }
}

/// Appends `name` to the frame's events `events[..*len]` unless it is there, reusing the
/// string kept past the end (its capacity) when there is one.
pub(super) fn push_event(events: &mut Vec<String>, len: &mut usize, name: &str) {
    if events[..*len].iter().any(|e| e == name) {
        return;
    }
    match events.get_mut(*len) {
        Some(slot) => {
            slot.clear();
            slot.push_str(name);
        }
        None => events.push(name.to_string()),
    }
    *len += 1;
}
