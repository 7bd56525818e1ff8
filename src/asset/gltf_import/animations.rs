//! Animations: channels into clips (key times, counts, formats, quaternions, morph
//! weights) with their markers and additive flag from `extras`.

use super::*;

/// A quaternion whose norm differs from 1 by more than this is reported when normalised.
pub(super) const QUAT_NORM_TOLERANCE: f32 = 1e-3;

/// Animation output components (translations, rotations, scales, spline tangents) whose
/// magnitude is below this are read as exactly 0.
///
/// Exporters leave float noise in keys meant to be 0: the Fox's rotation keys hold 212
/// components between 3.6e-25 and 1e-18. Those are normal f32s, but sampling multiplies
/// them with each other (quaternion dot products, blending), and products such as 1e-42
/// are subnormal, which the FPU handles on a slow path: sampling the Fox was measured
/// 2-3x slower. Flushing only true subnormals (below `f32::MIN_POSITIVE`) would not help, as
/// the inputs are not subnormal; their products are. 1e-15 is far below anything that can
/// show: a unit quaternion's components resolve to f32 epsilon (6e-8), so a 1e-15 term
/// turns it by under 1e-15 rad; translations and scales are as negligible at any
/// plausible asset scale (a 0.01-scaled armature still moves in steps of 1e-4 and more).
/// After flushing, a product of two nonzero components is at least 1e-30, a normal f32.
pub(super) const FLUSH_TO_ZERO_BELOW: f32 = 1e-15;

/// Sets components with magnitude below [`FLUSH_TO_ZERO_BELOW`] to +0.
pub(super) fn flush_tiny(values: &mut [f32]) {
    for v in values {
        if v.abs() < FLUSH_TO_ZERO_BELOW {
            *v = 0.0;
        }
    }
}

/// Finite, non-negative, strictly increasing key times.
pub(super) fn check_key_times(times: &[f32]) -> Result<(), ImportProblem> {
    if times.is_empty() {
        return Err("the sampler has no keys".into());
    }
    for (i, &t) in times.iter().enumerate() {
        if !t.is_finite() {
            return Err(format!("key time {i} is not a finite number").into());
        }
        if t < 0.0 {
            return Err(format!("key time {i} is negative ({t} s)").into());
        }
        if i > 0 && t <= times[i - 1] {
            return Err(format!(
                "key times not increasing at key {i} ({t} s after {} s)",
                times[i - 1]
            )
            .into());
        }
    }
    Ok(())
}

impl Importer<'_> {
    pub(super) fn clips(
        &mut self,
        h: &Hierarchy,
        joint_count: usize,
    ) -> Result<Vec<Clip>, ImportError> {
        let doc = self.doc;
        let mut clips = Vec::new();
        let mut names: HashSet<String> = HashSet::new();
        for animation in doc.animations() {
            if let Some(clip) = self.clip(&animation, h, joint_count, &mut names)? {
                clips.push(clip);
            }
        }
        Ok(clips)
    }

    pub(super) fn clip(
        &mut self,
        animation: &gltf::Animation<'_>,
        h: &Hierarchy,
        joint_count: usize,
        names: &mut HashSet<String>,
    ) -> Result<Option<Clip>, ImportError> {
        let a = animation.index();
        let anim_el = format!("animation {a}");
        let mut tracks: BTreeMap<usize, JointTracks> = BTreeMap::new();
        let mut targets: HashMap<(usize, u8), usize> = HashMap::new();
        let mut outside_scene = Vec::new();
        let mut skipped_morph = Vec::new();
        let mut morph: Vec<MorphTrack> = Vec::new();
        for (k, channel) in animation.channels().enumerate() {
            let c = original_channel(&self.channel_map, a, k);
            let element = format!("animation {a} channel {c}");
            let target = channel.target();
            let node = target.node().index();
            let property = target.property();
            let (code, path_name) = match property {
                Property::Translation => (0u8, "translation"),
                Property::Rotation => (1, "rotation"),
                Property::Scale => (2, "scale"),
                Property::MorphTargetWeights => (3, "morph weights"),
            };
            if let Some(previous) = targets.insert((node, code), c) {
                return Err(self.err(
                    &element,
                    format!(
                        "animates the {path_name} of node {node}, which channel {previous} \
                         already animates (duplicate channel target)"
                    ),
                ));
            }
            // Weights per key: one per morph target of the node's mesh.
            let morph_targets = if property == Property::MorphTargetWeights {
                let targets = target
                    .node()
                    .mesh()
                    .and_then(|m| m.primitives().next())
                    .map_or(0, |p| p.morph_targets().len());
                if targets == 0 {
                    skipped_morph.push(c);
                    continue;
                }
                targets
            } else {
                1
            };
            let Some(joint) = h.joint_of_node[node] else {
                outside_scene.push(c);
                continue;
            };
            let sampler = channel.sampler();
            let s = sampler.index();
            let interpolation = match sampler.interpolation() {
                GltfInterpolation::Step => Interpolation::Step,
                GltfInterpolation::Linear => Interpolation::Linear,
                GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let input = sampler.input();
            let times = self.read_f32s(
                &input,
                &element,
                &format!("sampler {s} input (key times)"),
                Dimensions::Scalar,
                FLOAT_ONLY,
            )?;
            if let Err(m) = check_key_times(&times) {
                return Err(self.err(
                    &element,
                    format!("{m} (sampler {s}, accessor {})", input.index()),
                ));
            }
            self.total_keys += times.len();
            if self.total_keys > MAX_TOTAL_KEYS {
                return Err(self.err(
                    &element,
                    format!(
                        "the file has more than {MAX_TOTAL_KEYS} keys in all; too large to import"
                    ),
                ));
            }
            let per_key = if interpolation == Interpolation::CubicSpline {
                if times.len() < 2 {
                    return Err(self.err(
                        &element,
                        format!(
                            "sampler {s} uses CUBICSPLINE interpolation with {} key(s); at least \
                             2 are needed",
                            times.len()
                        ),
                    ));
                }
                3
            } else {
                1
            };
            let output = sampler.output();
            let expected = times.len() * per_key * morph_targets;
            if output.count() != expected {
                return Err(self.err(
                    &element,
                    format!(
                        "sampler {s} has {} key times but {} output values (accessor {}); \
                         expected {expected}{}",
                        times.len(),
                        output.count(),
                        output.index(),
                        match (per_key, morph_targets) {
                            (3, 1) => " (in-tangent, value, out-tangent per key)".to_string(),
                            (1, 1) => String::new(),
                            (_, t) => format!(
                                " ({per_key} x {t} per key: one weight per morph target{})",
                                if per_key == 3 {
                                    ", in-tangent, value, out-tangent"
                                } else {
                                    ""
                                }
                            ),
                        }
                    ),
                ));
            }
            let role = format!("sampler {s} output ({path_name})");
            if property == Property::MorphTargetWeights {
                let values = self.read_f32s(
                    &output,
                    &element,
                    &role,
                    Dimensions::Scalar,
                    ANIMATION_OUTPUT_FORMATS,
                )?;
                let track = MorphTrack::new(
                    joint,
                    morph_targets,
                    interpolation,
                    times,
                    values,
                    "morph weights",
                )
                .map_err(|e| self.err(&element, e.to_string()))?;
                morph.push(track);
                continue;
            }
            let entry = tracks
                .entry(joint)
                .or_insert_with(|| JointTracks::new(joint));
            match property {
                Property::Translation | Property::Scale => {
                    let mut raw =
                        self.read_f32s(&output, &element, &role, Dimensions::Vec3, FLOAT_ONLY)?;
                    flush_tiny(&mut raw);
                    let values: Vec<Vec3> = raw.chunks_exact(3).map(Vec3::from_slice).collect();
                    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                        return Err(
                            self.err(&element, format!("{path_name} value {i} is not finite"))
                        );
                    }
                    let track = Track::new(interpolation, times, values, "track")
                        .map_err(|e| self.err(&element, e.to_string()))?;
                    if property == Property::Translation {
                        entry.translation = Some(track);
                    } else {
                        entry.scale = Some(track);
                    }
                }
                Property::Rotation => {
                    let mut raw = self.read_f32s(
                        &output,
                        &element,
                        &role,
                        Dimensions::Vec4,
                        ANIMATION_OUTPUT_FORMATS,
                    )?;
                    flush_tiny(&mut raw);
                    let mut values: Vec<Quat> = raw.chunks_exact(4).map(Quat::from_slice).collect();
                    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                        return Err(self.err(&element, format!("rotation value {i} is not finite")));
                    }
                    let mut off_unit = 0usize;
                    let mut worst = 1.0f32;
                    for key in 0..times.len() {
                        // Cubic splines: only the value is a rotation; tangents are not.
                        let i = key * per_key + per_key / 2;
                        let len = values[i].length();
                        if len == 0.0 {
                            return Err(self.err(
                                &element,
                                format!("rotation key {key} is a zero quaternion"),
                            ));
                        }
                        if (len - 1.0).abs() > QUAT_NORM_TOLERANCE {
                            off_unit += 1;
                            if (len - 1.0).abs() > (worst - 1.0).abs() {
                                worst = len;
                            }
                        }
                        values[i] /= len;
                    }
                    if off_unit > 0 {
                        self.warn(
                            &element,
                            format!(
                                "{off_unit} of {} rotation keys are not unit length (worst norm \
                                 {worst}); normalised",
                                times.len()
                            ),
                        );
                    }
                    let track = Track::new(interpolation, times, values, "track")
                        .map_err(|e| self.err(&element, e.to_string()))?;
                    entry.rotation = Some(track);
                }
                Property::MorphTargetWeights => {}
            }
        }
        if !outside_scene.is_empty() {
            let list: Vec<String> = outside_scene.iter().map(usize::to_string).collect();
            self.warn(
                &anim_el,
                format!(
                    "channel(s) {} target nodes that are not in the scene; skipped",
                    list.join(", ")
                ),
            );
        }
        if !skipped_morph.is_empty() {
            let list: Vec<String> = skipped_morph.iter().map(usize::to_string).collect();
            self.warn(
                &anim_el,
                format!(
                    "morph-weight channel(s) {} target nodes without morph targets; skipped",
                    list.join(", ")
                ),
            );
        }
        let base_name = animation
            .name()
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| anim_el.clone());
        if tracks.is_empty() && morph.is_empty() {
            self.warn(
                &anim_el,
                format!("'{base_name}' animates no joint of the scene; no clip is made"),
            );
            return Ok(None);
        }
        let mut name = base_name.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base_name} ({n})");
            n += 1;
        }
        names.insert(name.clone());

        let tracks: Vec<JointTracks> = tracks.into_values().collect();
        let duration = tracks
            .iter()
            .flat_map(|t| {
                [
                    t.translation.as_ref().map(|k| k.times()),
                    t.rotation.as_ref().map(|k| k.times()),
                    t.scale.as_ref().map(|k| k.times()),
                ]
            })
            .flatten()
            .chain(morph.iter().map(|t| t.times()))
            .filter_map(|times| times.last().copied())
            .fold(0.0f32, f32::max);
        let (markers, additive) = self.clip_extras(animation, &anim_el, duration);
        let clip = Clip::with_morph(name, tracks, morph, markers, joint_count)
            .map_err(|e| self.err(&anim_el, e.to_string()))?;
        Ok(Some(clip.with_additive(additive)))
    }

    /// `{"markers": [{"name": "left_foot_down", "time_secs": 0.0}], "additive": true}`.
    pub(super) fn clip_extras(
        &mut self,
        animation: &gltf::Animation<'_>,
        element: &str,
        duration: f32,
    ) -> (Vec<SyncMarker>, bool) {
        let mut markers = Vec::new();
        let mut additive = false;
        let Some(raw) = animation.extras().as_ref() else {
            return (markers, additive);
        };
        let value: serde_json::Value = match serde_json::from_str(raw.get()) {
            Ok(v) => v,
            Err(e) => {
                self.warn(element, format!("extras are not valid JSON ({e}); ignored"));
                return (markers, additive);
            }
        };
        let Some(obj) = value.as_object() else {
            return (markers, additive);
        };
        match obj.get("additive") {
            None => {}
            Some(serde_json::Value::Bool(b)) => additive = *b,
            Some(other) => self.warn(
                element,
                format!("extras.additive should be true or false, found {other}; ignored"),
            ),
        }
        match obj.get("markers") {
            None => {}
            Some(serde_json::Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let name = item.get("name").and_then(|n| n.as_str());
                    let time = item.get("time_secs").and_then(|t| t.as_f64());
                    match (name, time) {
                        (Some(name), Some(t))
                            if t.is_finite() && t >= 0.0 && (t as f32) <= duration =>
                        {
                            markers.push(SyncMarker {
                                name: name.to_string(),
                                time_secs: t as f32,
                            });
                        }
                        (Some(name), Some(t)) => self.warn(
                            element,
                            format!(
                                "marker {i} '{name}' at {t} s lies outside the clip \
                                 [0, {duration}] s; ignored"
                            ),
                        ),
                        _ => self.warn(
                            element,
                            format!(
                                "extras.markers[{i}] needs a string 'name' and a number \
                                 'time_secs'; ignored"
                            ),
                        ),
                    }
                }
            }
            Some(_) => self.warn(element, "extras.markers should be an array; ignored"),
        }
        (markers, additive)
    }
}
