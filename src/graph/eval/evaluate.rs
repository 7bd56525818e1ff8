//! Sampling and blending the pose, morph weights, the phase report and input status.

use super::*;

impl PoseGraph {
    /// Samples the weighted inputs and blends them (then the layers) into the output pose.
    pub fn evaluate(&mut self, model: &Model) -> Result<(), AnimError> {
        self.assign_weights()?;
        self.evaluate_weighted(model)
    }

    /// [`Self::evaluate`] with the weights already assigned this frame.
    pub(super) fn evaluate_weighted(&mut self, model: &Model) -> Result<(), AnimError> {
        let skeleton = &model.skeleton;
        for p in &mut self.players {
            if p.weight > 0.0 {
                p.sample(&model.clips, skeleton)?;
            }
        }
        {
            // Sampled and blended in blocks of four joints: the same bits as the per-joint
            // jobs (tests/soa_pipeline.rs), in about half their time.
            // Pushed one by one: `collect` into the inline vector goes through its general
            // `extend` (a reserve and a spill check per call), twice the instructions.
            let mut inputs: Inline<SoaBlendLayer> = Inline::new();
            for p in self
                .players
                .iter()
                .filter(|p| p.weight > 0.0 && !p.is_layer)
            {
                inputs.push(SoaBlendLayer {
                    pose: &p.pose_soa,
                    weight: p.weight,
                    joint_weights: None,
                });
            }
            if self.snapshot_weight > 0.0 {
                inputs.push(SoaBlendLayer {
                    pose: &self.snapshot,
                    weight: self.snapshot_weight,
                    joint_weights: None,
                });
            }
            // The blocks are the output (the rest pose after an error too) until a layer or
            // the inertialization changes it per joint.
            SoaBlendingJob {
                layers: &inputs,
                rest_pose: skeleton.rest_pose_soa(),
                threshold: SoaBlendingJob::DEFAULT_THRESHOLD,
            }
            .run(self.local.blocks_mut())?;
            // Layers work per joint: unpacked only for them (and the inertialization).
            if self.layers.iter().any(|l| l.current_weight > 0.0) {
                self.local.to_joints();
            }
        }
        for l in &mut self.layers {
            if l.current_weight <= 0.0 {
                continue;
            }
            let pose = &self.players[l.player].pose;
            match l.mode {
                LayerMode::Additive => {
                    AdditiveJob {
                        base: self.local.joints(),
                        additive: pose,
                        reference: &l.reference,
                        weight: l.current_weight,
                        joint_weights: l.mask.as_ref().map(|m| m.weights()),
                    }
                    .run(&mut self.scratch)?;
                }
                LayerMode::Override => {
                    let w = l.current_weight.min(1.0);
                    for j in 0..self.local.len() {
                        let m = l.mask.as_ref().map_or(1.0, |m| m.weights()[j]);
                        l.layer_weights[j] = m * w;
                        l.base_weights[j] = 1.0 - m * w;
                    }
                    let inputs = [
                        BlendLayer {
                            pose: self.local.joints(),
                            weight: 1.0,
                            joint_weights: Some(&l.base_weights),
                        },
                        BlendLayer {
                            pose,
                            weight: 1.0,
                            joint_weights: Some(&l.layer_weights),
                        },
                    ];
                    BlendingJob {
                        layers: &inputs,
                        rest_pose: skeleton.rest_pose(),
                        threshold: BlendingJob::DEFAULT_THRESHOLD,
                    }
                    .run(&mut self.scratch)?;
                }
            }
            std::mem::swap(self.local.joints_mut(), &mut self.scratch);
        }
        if self.inertia.is_enabled() {
            self.inertia
                .process(self.local.to_joints(), self.inertia_dt, self.inertia_jump)?;
        }
        self.blend_morph(model);
        self.update_phase_report(model)?;
        Ok(())
    }

    /// Morph weights per mesh (index = mesh index), blended like the pose.
    pub fn morph_weights(&self) -> &[Vec<f32>] {
        &self.morph
    }

    /// Blends each mesh's morph weights with the pose's weights: the inputs' weights
    /// normalised (the snapshot included; below [`BlendingJob::DEFAULT_THRESHOLD`] the
    /// mesh defaults join, as the rest pose does for joints), then each layer at its
    /// weight times its mask's weight on the mesh's node: additive layers add their
    /// difference to the reference, override layers cross-fade to theirs.
    pub(super) fn blend_morph(&mut self, model: &Model) {
        let threshold = BlendingJob::DEFAULT_THRESHOLD;
        for (m, mesh) in model.meshes.iter().enumerate() {
            let n = mesh.morph_target_count();
            if n == 0 || self.morph[m].len() != n {
                continue;
            }
            let out = &mut self.morph[m];
            let scratch = &mut self.morph_scratch[..n];
            out.fill(0.0);
            let mut total = 0.0f32;
            for p in self
                .players
                .iter()
                .filter(|p| p.weight > 0.0 && !p.is_layer)
            {
                model.mesh_morph_weights_at(
                    m,
                    Some(p.clip),
                    p.clock.time().phase_secs as f32,
                    scratch,
                );
                for (o, s) in out.iter_mut().zip(scratch.iter()) {
                    *o += p.weight * s;
                }
                total += p.weight;
            }
            if self.snapshot_weight > 0.0 {
                for (o, s) in out.iter_mut().zip(&self.morph_snapshot[m]) {
                    *o += self.snapshot_weight * s;
                }
                total += self.snapshot_weight;
            }
            if total < threshold {
                for (o, d) in out.iter_mut().zip(&mesh.morph_weights) {
                    *o += (threshold - total) * d;
                }
                total = threshold;
            }
            let inv = 1.0 / total;
            out.iter_mut().for_each(|o| *o *= inv);
            for l in &self.layers {
                let mask = l.mask.as_ref().map_or(1.0, |k| k.weights()[mesh.joint]);
                let w = l.current_weight * mask;
                if w <= 0.0 {
                    continue;
                }
                let p = &self.players[l.player];
                model.mesh_morph_weights_at(
                    m,
                    Some(p.clip),
                    p.clock.time().phase_secs as f32,
                    scratch,
                );
                match l.mode {
                    LayerMode::Additive => {
                        for ((o, s), r) in out
                            .iter_mut()
                            .zip(scratch.iter())
                            .zip(&l.morph_reference[m])
                        {
                            *o += w * (s - r);
                        }
                    }
                    LayerMode::Override => {
                        let w = w.min(1.0);
                        for (o, s) in out.iter_mut().zip(scratch.iter()) {
                            *o += (s - *o) * w;
                        }
                    }
                }
            }
        }
    }

    /// Re-measures phase cancellation when the set of active inputs, their weights (to
    /// 0.05) or their relative phases (to 0.05 cycle) changed. An unsynced blend of clips
    /// of different lengths drifts in phase all the time: at 0.01 cycle it re-measured
    /// (about 58 us for the Fox's walk and run) nearly every frame; at 0.05 it does so
    /// every five or so (the report samples a cycle 48 times: 0.05 is 2.4 samples), and
    /// the reports of an unsynced blend are kept by key, so the phases it drifts back
    /// through are measured once.
    pub(super) fn update_phase_report(&mut self, model: &Model) -> Result<(), AnimError> {
        let is_active = |p: &&ClipPlayer| p.weight > 0.0 && !p.is_layer;
        let count = self.players.iter().filter(is_active).count();
        if count < 2 || self.legs.is_empty() {
            self.phase = None;
            self.phase_key.clear();
            self.sync_notes.clear();
            return Ok(());
        }
        let lead = self.leader_index();
        let lead_u = self.players[lead].normalized();
        // Unchanged inputs (nearly every frame): the key is compared as it is computed,
        // nothing collected.
        if self.phase.is_some() && self.phase_key.len() == count {
            let mut keys = self.phase_key.iter();
            let same = self
                .players
                .iter()
                .filter(is_active)
                .all(|p| keys.next() == Some(&phase_key_of(p, lead_u)));
            if same {
                return Ok(());
            }
        }
        let mut active: Inline<usize> = Inline::new();
        let mut key: Inline<(usize, i32, i32)> = Inline::new();
        for (i, p) in self
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| is_active(p))
        {
            active.push(i);
            key.push(phase_key_of(p, lead_u));
        }
        // Marker-synced inputs keep their offsets (the key rarely changes) and measure
        // the gait cycle that plays now: only unsynced blends use the cache. An unsynced
        // blend drifts through its relative phases in the order they were measured in, so
        // the search starts after the last hit (about one key change in six frames for
        // the Fox's walk and run; from the start the search took ten comparisons).
        let unsynced = !self.uses_marker_sync();
        let n = self.phase_cache.len();
        let from = self.swing_hit.map_or(0, |h| h + 1);
        if let Some(hit) = (0..n)
            .map(|k| (from + k) % n)
            .find(|&i| unsynced && self.phase_cache[i].0[..] == key[..])
        {
            self.phase = Some(self.phase_cache[hit].1);
            // The curves are read from the cache entry: a hit copies and allocates nothing.
            self.swing_hit = Some(hit);
            self.swing_clips.clear();
            self.swing_clips
                .extend(active.iter().map(|&i| self.players[i].clip));
            self.phase_key.clear();
            self.phase_key.extend_from_slice(&key);
            self.sync_notes.clear();
            return Ok(());
        }
        let legs: Vec<(usize, usize)> = self.legs.iter().map(|l| (l.thigh, l.foot)).collect();
        // Takes of several steps synced per gait cycle: measure the gait cycles that play
        // now, at their relative gait phase (their whole clips are not one cycle each).
        let gait = |i: usize| -> Option<(f64, f64, f64)> {
            if !self.uses_marker_sync() {
                return None;
            }
            let (l, p) = (&self.players[lead], &self.players[i]);
            let name = sync::gait_marker(&l.sync_markers, &p.sync_markers)?;
            let now = p.clock.time().phase_secs;
            let (start, len) = sync::gait_cycle_at(&p.sync_markers, name, p.duration_secs(), now)?;
            let phase = ((now - start) / len).rem_euclid(1.0);
            Some((start, len, phase))
        };
        let lead_gait = gait(lead);
        // Clips turned onto another's start are measured as they blend.
        fn aligned(p: &ClipPlayer) -> Option<(&crate::anim::ClipRootMotion, GroundTransform)> {
            p.root
                .as_ref()
                .filter(|_| p.align != GroundTransform::IDENTITY)
                .map(|r| (r, p.align))
        }
        let inputs: Vec<PhaseInput> = active
            .iter()
            .map(|&i| {
                let p = &self.players[i];
                match (lead_gait, gait(i)) {
                    (Some((_, _, lg)), Some((start, len, g))) => PhaseInput {
                        clip: &model.clips[p.clip],
                        phase_offset: (g - lg).rem_euclid(1.0),
                        weight: p.weight,
                        window_secs: Some((start, len)),
                        aligned: aligned(p),
                    },
                    _ => PhaseInput {
                        clip: &model.clips[p.clip],
                        phase_offset: (p.normalized() - lead_u).rem_euclid(1.0),
                        weight: p.weight,
                        window_secs: None,
                        aligned: aligned(p),
                    },
                }
            })
            .collect();
        self.swing_hit = None;
        self.phase = Some(phase::measure_phase_cancellation_with_curves(
            &model.skeleton,
            &legs,
            &inputs,
            PHASE_SAMPLES,
            &mut self.swing,
        )?);
        self.swing_clips.clear();
        self.swing_clips
            .extend(active.iter().map(|&i| self.players[i].clip));
        self.phase_key = key.to_vec();
        if unsynced {
            if self.phase_cache.len() >= super::PHASE_CACHE_LEN {
                self.phase_cache.clear();
            }
            if let Some(report) = self.phase {
                self.phase_cache
                    .push((key.to_vec(), report, self.swing.clone()));
            }
        }
        self.sync_notes.clear();
        if self.uses_marker_sync() {
            let l = &self.players[lead];
            for &i in active.iter().filter(|&&i| i != lead) {
                let f = &self.players[i];
                let note = sync::marker_alignment(
                    &l.sync_markers,
                    l.duration_secs(),
                    &f.sync_markers,
                    f.duration_secs(),
                )
                .note();
                if let Some(note) = note {
                    self.sync_notes.push(format!(
                        "'{}' on '{}': {note}",
                        model.clips[f.clip].name(),
                        model.clips[l.clip].name()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Per-input status for the UI and `trace` (base inputs with weight > 0 first by
    /// weight, then layers).
    pub fn status(&self, model: &Model) -> Vec<InputStatus> {
        let mut out = Vec::new();
        let owner_of = |i: usize| -> Option<String> {
            if let Base::Machine(m) = &self.base {
                for (s, node) in m.states.iter().enumerate() {
                    if node.players().contains(&i) {
                        return Some(m.sm.state_name(s).to_string());
                    }
                }
            }
            None
        };
        for (i, p) in self.players.iter().enumerate() {
            let layer = self.layers.iter().find(|l| l.player == i);
            if p.weight <= 0.0 && layer.is_none() {
                continue;
            }
            out.push(InputStatus {
                player: i,
                clip: model.clips[p.clip].name().to_string(),
                time_secs: p.clock.time().phase_secs,
                phase: p.normalized(),
                weight: p.weight,
                owner: layer.map(|l| l.name.clone()).or_else(|| owner_of(i)),
                is_layer: layer.is_some(),
                markers_detected: p.markers_detected,
            });
        }
        out.sort_by(|a, b| {
            a.is_layer
                .cmp(&b.is_layer)
                .then(b.weight.total_cmp(&a.weight))
        });
        out
    }
}

/// The clip and time an additive layer's reference is sampled at (`None`: the bind pose).
pub(super) fn reference_frame(
    model: &Model,
    def: &ReferenceDef,
    own_clip: usize,
) -> Result<Option<(usize, f32)>, GraphError> {
    Ok(Some(match def {
        ReferenceDef::BindPose => return Ok(None),
        ReferenceDef::FirstFrame => (own_clip, model.clips[own_clip].additive_reference_secs()),
        ReferenceDef::ClipFrame { clip, time_secs } => {
            let c = model
                .find_clip(clip)
                .ok_or_else(|| GraphError::UnknownReferenceClip { clip: clip.clone() })?;
            (c, *time_secs)
        }
    }))
}

/// The reference morph weights of an additive layer (per mesh), sampled once like
/// [`reference_pose`].
pub(super) fn reference_morph(
    model: &Model,
    def: &ReferenceDef,
    own_clip: usize,
) -> Result<Vec<Vec<f32>>, GraphError> {
    let mut out = model.default_morph_weights();
    if let Some((clip, time)) = reference_frame(model, def, own_clip)? {
        model.morph_weights_at(Some(clip), time, &mut out);
    }
    Ok(out)
}

/// The reference pose of an additive layer, sampled once.
pub(super) fn reference_pose(
    model: &Model,
    def: &ReferenceDef,
    own_clip: usize,
) -> Result<Vec<Transform>, GraphError> {
    let skeleton = &model.skeleton;
    let mut pose = skeleton.rest_pose().to_vec();
    let Some((clip, time)) = reference_frame(model, def, own_clip)? else {
        return Ok(pose);
    };
    SamplingJob {
        clip: &model.clips[clip],
        time_secs: time,
        rest_pose: skeleton.rest_pose(),
    }
    .run(&mut pose)?;
    Ok(pose)
}

/// A base input's part of the phase-report key: its clip, its weight to 0.05 and its
/// phase offset from the leader's (`lead_u`) to 0.05 cycle.
fn phase_key_of(p: &ClipPlayer, lead_u: f64) -> (usize, i32, i32) {
    // Both phases are in [0, 1), so the difference is in (-1, 1) and this is
    // `rem_euclid(1.0)` without its fmod call.
    let off = p.normalized() - lead_u;
    let off = if off < 0.0 { off + 1.0 } else { off };
    (
        p.clip,
        round_non_negative(f64::from(p.weight * 20.0)),
        round_non_negative(off * 20.0) % 20,
    )
}

/// `x.round() as i32` for `x` in `[0, 2^31)`, without the libm call `round` is on a
/// baseline x86-64 target: the integer part, plus one from a fraction of one half up.
#[inline]
fn round_non_negative(x: f64) -> i32 {
    let i = x as i32;
    if x - f64::from(i) >= 0.5 {
        i + 1
    } else {
        i
    }
}
