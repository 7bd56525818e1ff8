//! FBX takes (anim stacks) into clips, baked by ufbx.

use std::collections::HashSet;
use std::path::Path;

use glam::{Quat, Vec3};

use super::mesh::{inbetween_weights, MorphSource};
use super::{quat, vec3, Joints};
use crate::anim::{Clip, Interpolation, JointTracks, MorphTrack, Skeleton, Track};
use crate::{ImportError, ImportProblem};

/// The longest take imported (a take that claims days of scene time is a broken file).
const MAX_TAKE_SECS: f64 = 4.0 * 3600.0;
/// Keys over every take of a file.
const MAX_TOTAL_KEYS: usize = 1 << 25;

/// One clip per take, in the file's order, named after the take (made unique).
pub(super) fn clips(
    scene: &ufbx::Scene,
    joints: &Joints,
    skeleton: &Skeleton,
    morphs: &[MorphSource],
    fps: f64,
    path: &Path,
) -> Result<Vec<Clip>, ImportError> {
    let mut clips = Vec::new();
    let mut names = HashSet::new();
    let mut total_keys = 0usize;
    for (s, stack) in scene.anim_stacks.iter().enumerate() {
        let mut name = stack.element.name.to_string();
        if name.is_empty() {
            name = format!("take {s}");
        }
        name = crate::naming::unique_name(&name, |n| names.contains(n));
        names.insert(name.clone());
        let at = |message: String| ImportError::new(path, format!("take '{name}'"), message);
        let bake = ufbx::bake_anim(
            scene,
            &stack.anim,
            ufbx::BakeOpts {
                resample_rate: fps,
                ..Default::default()
            },
        )
        .map_err(|e| at(format!("ufbx could not bake it: {}", super::error_text(&e))))?;
        let (mut begin, mut end) = (stack.time_begin, stack.time_end);
        if !(begin.is_finite() && end.is_finite() && end > begin) {
            // No playback range: the keys' range.
            (begin, end) = (bake.key_time_min, bake.key_time_max);
        }
        if !(begin.is_finite() && end.is_finite()) || end < begin {
            (begin, end) = (0.0, 0.0);
        }
        if end - begin > MAX_TAKE_SECS {
            return Err(at(format!(
                "it runs {:.0} s (from {begin} s to {end} s), longer than {MAX_TAKE_SECS:.0} s",
                end - begin
            )));
        }
        let window = Window { begin, end };

        let mut tracks = Vec::new();
        for baked in &bake.nodes {
            let node = baked.typed_id as usize;
            let Some(&joint) = joints.of_node.get(&node) else {
                continue;
            };
            let rest = skeleton.rest_pose()[joint];
            let joint_name = &skeleton.names()[joint];
            let fail = |e: crate::anim::AnimError| at(format!("node '{joint_name}': {e}"));
            let mut jt = JointTracks::new(joint);
            let t: Vec<(f64, Vec3)> = baked
                .translation_keys
                .iter()
                .map(|k| (k.time, vec3(k.value)))
                .collect();
            let r: Vec<(f64, Quat)> = baked
                .rotation_keys
                .iter()
                .map(|k| (k.time, quat(k.value)))
                .collect();
            let sc: Vec<(f64, Vec3)> = baked
                .scale_keys
                .iter()
                .map(|k| (k.time, vec3(k.value)))
                .collect();
            total_keys = total_keys.saturating_add(t.len() + r.len() + sc.len());
            if total_keys > MAX_TOTAL_KEYS {
                return Err(at(format!("more than {MAX_TOTAL_KEYS} keys in all")));
            }
            if !holds(&t, |v| {
                v.abs_diff_eq(rest.translation, 1e-6 * (1.0 + v.length()))
            }) {
                let (times, values) = window.cut(&t, lerp3);
                finite(
                    values.iter().all(|v| v.is_finite()),
                    joint_name,
                    "translation",
                )
                .map_err(|e| at(e.message))?;
                jt.translation = Some(
                    Track::new(Interpolation::Linear, times, values, "translation")
                        .map_err(fail)?,
                );
            }
            // Within 1e-6 (f32 cannot hold 1 - 1e-9: it is 1 there).
            if !holds(&r, |q| q.dot(rest.rotation).abs() > 1.0 - 1e-6) {
                let (times, values) = window.cut(&r, |a, b, u| a.slerp(b, u));
                finite(values.iter().all(|q| q.is_finite()), joint_name, "rotation")
                    .map_err(|e| at(e.message))?;
                jt.rotation = Some(
                    Track::new(Interpolation::Linear, times, values, "rotation").map_err(fail)?,
                );
            }
            if !holds(&sc, |v| v.abs_diff_eq(rest.scale, 1e-6)) {
                let (times, values) = window.cut(&sc, lerp3);
                finite(values.iter().all(|v| v.is_finite()), joint_name, "scale")
                    .map_err(|e| at(e.message))?;
                jt.scale =
                    Some(Track::new(Interpolation::Linear, times, values, "scale").map_err(fail)?);
            }
            if jt.channel_count() > 0 {
                tracks.push(jt);
            }
        }

        let mut morph_tracks = Vec::new();
        for m in morphs {
            let frames = ((end - begin) * fps).round().max(0.0) as usize + 1;
            let targets: usize = m.channels.iter().map(|(_, t)| t.len()).sum();
            // Every frame holds a weight per target: count them all before allocating.
            total_keys = total_keys.saturating_add(frames.saturating_mul(targets.max(1)));
            if total_keys > MAX_TOTAL_KEYS {
                return Err(at(format!("more than {MAX_TOTAL_KEYS} keys in all")));
            }
            let mut times = Vec::with_capacity(frames);
            let mut values = Vec::with_capacity(frames * targets);
            let mut animated = false;
            for f in 0..frames {
                let scene_time = if f + 1 == frames {
                    end
                } else {
                    begin + f as f64 / fps
                };
                let t = (scene_time - begin) as f32;
                if times.last().is_some_and(|&last| t <= last) {
                    continue;
                }
                times.push(t);
                for (channel, target_weights) in &m.channels {
                    let w = ufbx::evaluate_blend_weight(&stack.anim, channel, scene_time);
                    if w != channel.weight {
                        animated = true;
                    }
                    values.extend(
                        inbetween_weights(w, target_weights)
                            .iter()
                            .map(|&x| x as f32),
                    );
                }
            }
            if !animated {
                continue;
            }
            morph_tracks.push(
                MorphTrack::new(
                    m.joint,
                    targets,
                    Interpolation::Linear,
                    times,
                    values,
                    &format!("mesh {} blend shape weights", m.mesh),
                )
                .map_err(|e| at(e.to_string()))?,
            );
        }
        let clip = Clip::with_morph(
            name.clone(),
            tracks,
            morph_tracks,
            Vec::new(),
            skeleton.joint_count(),
        )
        .map_err(|e| at(e.to_string()))?
        .with_frame_rate(Some(fps))
        .with_source_start(begin);
        clips.push(clip);
    }
    Ok(clips)
}

/// True when every key holds a value `same` accepts (or there are none).
fn holds<T: Copy>(keys: &[(f64, T)], same: impl Fn(T) -> bool) -> bool {
    keys.iter().all(|&(_, v)| same(v))
}

fn lerp3(a: Vec3, b: Vec3, u: f32) -> Vec3 {
    a.lerp(b, u)
}

fn finite(ok: bool, joint: &str, what: &str) -> Result<(), ImportProblem> {
    if ok {
        Ok(())
    } else {
        Err(format!("node '{joint}': a {what} key is not finite").into())
    }
}

/// A take's range in scene time.
struct Window {
    begin: f64,
    end: f64,
}

impl Window {
    /// The keys within the take, in clip time (scene time − begin), with a key exactly at
    /// 0 and at the take's end (interpolated between the baked keys around them, or the
    /// first/last key held), so every track spans the take.
    fn cut<T: Copy>(&self, keys: &[(f64, T)], lerp: impl Fn(T, T, f32) -> T) -> (Vec<f32>, Vec<T>) {
        let at = |time: f64| -> T {
            let i = keys.partition_point(|&(t, _)| t <= time);
            if i == 0 {
                return keys[0].1;
            }
            if i >= keys.len() {
                return keys[keys.len() - 1].1;
            }
            let (t0, a) = keys[i - 1];
            let (t1, b) = keys[i];
            let u = if t1 > t0 {
                ((time - t0) / (t1 - t0)) as f32
            } else {
                0.0
            };
            lerp(a, b, u)
        };
        let mut times = vec![0.0f32];
        let mut values = vec![at(self.begin)];
        for &(t, v) in keys {
            if t > self.begin && t < self.end {
                let ct = (t - self.begin) as f32;
                if ct > *times.last().unwrap_or(&0.0) {
                    times.push(ct);
                    values.push(v);
                }
            }
        }
        let dur = (self.end - self.begin) as f32;
        if dur > *times.last().unwrap_or(&0.0) {
            times.push(dur);
            values.push(at(self.end));
        }
        (times, values)
    }
}
