//! Building the runtime graph from its definition: clip inputs, nodes, layers, the
//! one-clip graphs the timeline and Drive use, and the facing alignment of inputs.

use super::*;

struct Builder<'a> {
    model: &'a Model,
    players: Vec<ClipPlayer>,
    legs: &'a [LegChain],
    params: &'a Params,
}

impl Builder<'_> {
    pub(super) fn clip(&self, name: &str, context: &str) -> Result<usize, GraphError> {
        self.model
            .find_clip(name)
            .ok_or_else(|| GraphError::UnknownClip {
                context: context.to_string(),
                clip: name.to_string(),
                clips: self
                    .model
                    .clips
                    .iter()
                    .map(|c| c.name().to_string())
                    .collect(),
            })
    }

    pub(super) fn player(&mut self, name: &str, context: &str) -> Result<usize, GraphError> {
        let clip = self.clip(name, context)?;
        let c = &self.model.clips[clip];
        // The clip's analysis decides its root motion (none when in place) and, for a
        // synced graph, its markers (the file's, else detected from the feet).
        let (root, markers) = match self.model.clip_analysis(clip) {
            Ok(a) => {
                let markers = if self.legs.is_empty() {
                    (c.markers().to_vec(), false)
                } else {
                    (a.markers.clone(), a.markers_detected)
                };
                (a.root_motion().cloned(), markers)
            }
            // Analysis failed (e.g. a pose that is not finite at some time): the root
            // motion as extracted, or the error that says why it cannot be.
            Err(_) => (
                crate::anim::ClipRootMotion::for_clip(&self.model.skeleton, c, None).map_err(
                    |e| GraphError::RootMotion {
                        context: context.to_string(),
                        clip: c.name().to_string(),
                        source: e,
                    },
                )?,
                (c.markers().to_vec(), false),
            ),
        };
        let p = ClipPlayer::new(&self.model.skeleton, &self.model.clips, clip, root, markers)
            .map_err(|e| e.in_context(context))?;
        self.players.push(p);
        Ok(self.players.len() - 1)
    }

    pub(super) fn check_float(&self, name: &str, context: &str) -> Result<(), GraphError> {
        if self.params.get_float(name).is_none() {
            return Err(GraphError::UnknownParameter {
                context: context.to_string(),
                param: name.to_string(),
            });
        }
        Ok(())
    }

    pub(super) fn weight(&self, w: &Weight, context: &str) -> Result<(), GraphError> {
        match w {
            Weight::Fixed(v) if !v.is_finite() || *v < 0.0 => Err(GraphError::BadWeight {
                context: context.to_string(),
                weight: *v,
            }),
            Weight::Param(p) => self.check_float(p, context),
            _ => Ok(()),
        }
    }

    /// Root-motion velocity of a clip (sideways X, forward Z) in m/s: the default position
    /// of a blend-space sample. An in-place clip (no root motion to speak of) gets the
    /// velocity its planted feet imply (`anim::locomotion::implied_speed`), so spaces of
    /// in-place clips (Mixamo, the shared characters) need no hand-written positions.
    pub(super) fn velocity(&self, player: usize) -> DVec2 {
        let p = &self.players[player];
        if p.duration_secs() <= 0.0 {
            return DVec2::ZERO;
        }
        match self.model.clip_analysis(p.clip) {
            Ok(a) => {
                let v = a.direction() * a.speed() as f32;
                DVec2::new(f64::from(v.x), f64::from(v.z))
            }
            Err(_) => match &p.root {
                Some(r) => r.motion.cycle_displacement().translation / p.duration_secs(),
                None => DVec2::ZERO,
            },
        }
    }

    pub(super) fn node(&mut self, def: &NodeDef, context: &str) -> Result<Node, GraphError> {
        Ok(match def {
            NodeDef::Clip { clip, rate } => {
                if !rate.is_finite() {
                    return Err(GraphError::NotFinite {
                        context: context.to_string(),
                        field: "rate",
                    });
                }
                Node::Clip {
                    player: self.player(clip, context)?,
                    rate: *rate as f64,
                }
            }
            NodeDef::Blend { inputs, sync } => {
                if inputs.is_empty() {
                    return Err(GraphError::EmptyBlend {
                        context: context.to_string(),
                    });
                }
                let mut players = Vec::new();
                for i in inputs {
                    self.weight(&i.weight, context)?;
                    if !i.offset.is_finite() {
                        return Err(GraphError::NotFinite {
                            context: context.to_string(),
                            field: "offset",
                        });
                    }
                    let p = self.player(&i.clip, context)?;
                    self.players[p].offset = i.offset as f64;
                    players.push(p);
                }
                Node::Blend {
                    norm: vec![0.0; players.len()],
                    players,
                    weights: inputs.iter().map(|i| i.weight.clone()).collect(),
                    sync: *sync,
                }
            }
            NodeDef::BlendSpace1D {
                param,
                samples,
                sync,
            } => {
                self.check_float(param, context)?;
                let mut players = Vec::new();
                let mut positions = Vec::new();
                for s in samples {
                    let p = self.player(&s.clip, context)?;
                    positions.push(
                        s.position
                            .unwrap_or_else(|| self.velocity(p).length() as f32),
                    );
                    players.push(p);
                }
                let space = BlendSpace1D::new(&positions).map_err(|e| GraphError::BlendSpace {
                    context: context.to_string(),
                    source: e,
                })?;
                Node::Space1D {
                    norm: vec![0.0; players.len()],
                    players,
                    space,
                    param: param.clone(),
                    sync: *sync,
                    at: f32::NAN,
                }
            }
            NodeDef::BlendSpace2D {
                x,
                y,
                samples,
                sync,
            } => {
                self.check_float(x, context)?;
                self.check_float(y, context)?;
                let mut players = Vec::new();
                let mut points = Vec::new();
                for s in samples {
                    let p = self.player(&s.clip, context)?;
                    let v = self.velocity(p);
                    let (px, py) = s.position.unwrap_or((v.x as f32, v.y as f32));
                    points.push(glam::Vec2::new(px, py));
                    players.push(p);
                }
                let space = BlendSpace2D::new(&points).map_err(|e| GraphError::BlendSpace {
                    context: context.to_string(),
                    source: e,
                })?;
                Node::Space2D {
                    norm: vec![0.0; players.len()],
                    players,
                    space: Box::new(space),
                    params: (x.clone(), y.clone()),
                    sync: *sync,
                    query: None,
                    at: glam::Vec2::NAN,
                }
            }
            NodeDef::StateMachine { .. } => {
                return Err(GraphError::NestedStateMachine {
                    context: context.to_string(),
                })
            }
        })
    }
}

/// Turn past which two clips count as captured facing different ways (45 degrees): a
/// walk and a run of one character start alike within a few degrees of toe-out.
const FACING_ALIGN_RAD: f64 = std::f64::consts::FRAC_PI_4;

/// Motion-capture takes start wherever the actor stood and face wherever the actor
/// walked (a Bandai walk heads -Z, its run +Z): blended in local space their hips turn
/// against each other and the swing cancels. Each clip with root motion whose start
/// faces more than [`FACING_ALIGN_RAD`] away from the graph's first such clip is moved
/// onto that clip's start ([`ClipPlayer::align`]). Facing: the feet's direction (ankle to
/// toe) at clip time 0; clips without toes keep their own.
pub(super) fn align_facings(
    model: &Model,
    legs: &[contacts::LegChain],
    players: &mut [ClipPlayer],
) {
    let frames: Vec<Option<GroundTransform>> = players
        .iter()
        .map(|p| start_frame(model, legs, p))
        .collect();
    let Some(reference) = frames.iter().flatten().next().copied() else {
        return;
    };
    for (p, f) in players.iter_mut().zip(&frames) {
        let Some(f) = f else { continue };
        let turn = (reference.yaw_rad - f.yaw_rad + std::f64::consts::PI)
            .rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        if turn.abs() > FACING_ALIGN_RAD {
            p.align = reference.compose(&f.inverse());
        }
    }
}

impl PoseGraph {
    /// Builds the runtime graph; errors name the state or layer and the clip or parameter.
    pub fn new(model: &Model, def: &GraphDef) -> Result<Self, GraphError> {
        Self::build(model, def, true)
    }

    /// `detect_legs`: find the legs (phase report, marker detection for sync, locomotion);
    /// a one-clip preview ([`PoseGraph::clip_preview`]) needs none of that.
    pub(super) fn build(
        model: &Model,
        def: &GraphDef,
        detect_legs: bool,
    ) -> Result<Self, GraphError> {
        let mut params = Params::new();
        for p in &def.params {
            match p {
                ParamDef::Float { name, default, .. } => params.declare_float(name, *default),
                ParamDef::Bool { name, default } => params.declare_bool(name, *default),
            }
        }
        let legs = if detect_legs {
            // The model's legs: the user's choice when made.
            model.legs().unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut b = Builder {
            model,
            players: Vec::new(),
            legs: &legs,
            params: &params,
        };
        let base = match &def.base {
            NodeDef::StateMachine { machine, sync } => {
                let sm = StateMachine::new(machine, &params)?;
                let mut states = Vec::new();
                for s in &machine.states {
                    states.push(b.node(&s.node, &format!("state '{}'", s.name))?);
                }
                Base::Machine(Box::new(Machine {
                    entered_cycles: vec![0.0; states.len()],
                    sm,
                    states,
                    sync: *sync,
                }))
            }
            other => Base::Node(b.node(other, "base")?),
        };
        let mut layers = Vec::new();
        for l in &def.layers {
            let context = format!("layer '{}'", l.name);
            b.weight(&l.weight, &context)?;
            let player = b.player(&l.clip, &context)?;
            b.players[player].is_layer = true;
            let mask = match &l.mask {
                Some(m) => {
                    let subtrees: Vec<(&str, f32)> =
                        m.subtrees.iter().map(|(n, w)| (n.as_str(), *w)).collect();
                    let ramp: Vec<(&str, f32)> =
                        m.ramp.iter().map(|(n, w)| (n.as_str(), *w)).collect();
                    Some(
                        JointMask::from_names(&model.skeleton, &subtrees, &ramp).map_err(|e| {
                            GraphError::Mask {
                                context: context.clone(),
                                source: e,
                            }
                        })?,
                    )
                }
                None => None,
            };
            let reference = reference_pose(model, &l.reference, b.players[player].clip)
                .map_err(|e| e.in_context(format!("{context}: reference")))?;
            let morph_reference = reference_morph(model, &l.reference, b.players[player].clip)
                .map_err(|e| e.in_context(format!("{context}: reference")))?;
            let hold_phase = match l.hold {
                None => None,
                Some(t) if t.is_finite() => {
                    let d = b.players[player].duration_secs();
                    // The end of the clip is its last frame, not phase 0 of the next cycle.
                    Some(if d > 0.0 {
                        (f64::from(t) / d).clamp(0.0, 1.0 - 1e-9)
                    } else {
                        0.0
                    })
                }
                Some(_) => {
                    return Err(GraphError::NotFinite {
                        context,
                        field: "hold",
                    })
                }
            };
            let n = model.skeleton.joint_count();
            layers.push(Layer {
                hold_phase,
                name: l.name.clone(),
                player,
                mode: l.mode,
                weight: l.weight.clone(),
                mask,
                reference,
                morph_reference,
                layer_weights: vec![0.0; n],
                base_weights: vec![0.0; n],
                current_weight: 0.0,
            });
        }
        let mut players = b.players;
        for l in &layers {
            if let Some(u) = l.hold_phase {
                players[l.player]
                    .seek_phase(0, u)
                    .map_err(|e| GraphError::Anim(e).in_context(format!("layer '{}'", l.name)))?;
            }
        }
        align_facings(model, &legs, &mut players);
        let n = model.skeleton.joint_count();
        let inertialized = match &base {
            Base::Machine(m) => m.sm.has_inertialized_transitions(),
            Base::Node(_) => false,
        };
        let mut graph = Self {
            def: def.clone(),
            params,
            players,
            base,
            layers,
            rate: 1.0,
            legs,
            local: SoaPose::new(model.skeleton.rest_pose()),
            root_delta: GroundTransform::IDENTITY,
            snapshot: model.skeleton.rest_pose_soa().to_vec(),
            snapshot_velocity: GroundTransform::IDENTITY,
            snapshot_weight: 0.0,
            scratch: vec![Transform::IDENTITY; n],
            morph: model.default_morph_weights(),
            morph_snapshot: model.default_morph_weights(),
            morph_scratch: vec![
                0.0;
                model
                    .meshes
                    .iter()
                    .map(|m| m.morph_target_count())
                    .max()
                    .unwrap_or(0)
            ],
            events: Vec::new(),
            events_len: 0,
            phase: None,
            swing: SwingCurves::default(),
            swing_hit: None,
            swing_clips: Vec::new(),
            phase_key: Vec::new(),
            phase_cache: Vec::new(),
            sync_notes: Vec::new(),
            last_dt: 0.0,
            inertia: crate::inertial::TransitionInertia::new(inertialized),
            inertia_dt: 0.0,
            inertia_jump: None,
        };
        graph.seek(model, 0.0)?;
        Ok(graph)
    }

    /// A graph playing one clip (what the timeline's clip list selects).
    pub fn single_clip(model: &Model, clip: usize) -> Result<Self, GraphError> {
        Self::build(model, &Self::one_clip_def(model, clip)?, true)
    }

    /// The one-clip graph the timeline shows its clip through (the stage's `Pose` evaluates
    /// every clip request with one): [`PoseGraph::show_clip_time`] puts it at the
    /// timeline's time. Cheap to build: without sync there are no legs to find and no
    /// markers to detect (the clip's analysis, which decides its root motion, is the
    /// model's, computed once per clip).
    pub fn clip_preview(model: &Model, clip: usize) -> Result<Self, GraphError> {
        Self::build(model, &Self::one_clip_def(model, clip)?, false)
    }

    pub(super) fn one_clip_def(model: &Model, clip: usize) -> Result<GraphDef, GraphError> {
        let name = model.clip(clip)?.name().to_string();
        Ok(GraphDef {
            params: Vec::new(),
            base: NodeDef::Clip {
                clip: name,
                rate: 1.0,
            },
            layers: Vec::new(),
        })
    }

    /// Puts every input at clip time `clip_secs` exactly (clamped to the clip; its end
    /// included, as a clamped timeline shows it) and evaluates: a seek, no root motion
    /// or events. `keep_root_motion` leaves the clip's root motion in the pose (the
    /// timeline's *Loop and reset*), else it is removed as the graph always does.
    pub fn show_clip_time(
        &mut self,
        model: &Model,
        clip_secs: f64,
        keep_root_motion: bool,
    ) -> Result<(), AnimError> {
        if !clip_secs.is_finite() {
            return Err(AnimError::NonFinite {
                what: "clip time".into(),
            });
        }
        for p in &mut self.players {
            p.keep_root_motion = keep_root_motion;
            p.clock.set_looping(false);
            p.clock.seek(crate::anim::root_motion::ClipTime {
                cycle: 0,
                phase_secs: clip_secs,
            })?;
            p.delta = GroundTransform::IDENTITY;
            p.interval = None;
        }
        self.root_delta = GroundTransform::IDENTITY;
        self.events_len = 0;
        // A seek shows the clips as they are: no offset carries over.
        self.inertia.reset(&[]);
        self.evaluate(model)
    }
}
