//! Clip inspection panels: the joint outliner (tree, search, skin joints marked), the
//! selected joint's transforms, the curve view (egui_plot: channels over the clip, keys as
//! points, playhead, loop seam; a click seeks), the loop-seam table and the onion-skin
//! settings. They draw [`crate::stage::inspect::Inspection`] on the previewer; no state of their
//! own beyond egui's collapsing state.

use crate::controller::{StageCommand, ViewCommand};
use egui::Color32;
use egui_plot::{Line, Plot, PlotPoints, VLine};

use super::palette::WARN;
use super::Previewer;
use crate::anim::seam::SeamChannel;

const SELECTED: Color32 = Color32::from_rgb(90, 200, 255);
/// x, y, z (and w) curve colours, as in every DCC: red, green, blue.
pub(super) const AXIS: [Color32; 4] = [
    Color32::from_rgb(235, 90, 80),
    Color32::from_rgb(110, 200, 90),
    Color32::from_rgb(90, 140, 240),
    Color32::from_rgb(200, 200, 200),
];
/// Translation x, y, z: the axis hues, lighter, so tx never reads as rx.
pub(super) const TRANSLATION: [Color32; 3] = [
    Color32::from_rgb(255, 160, 120),
    Color32::from_rgb(190, 240, 110),
    Color32::from_rgb(120, 210, 255),
];
/// Scale x, y, z: the axis hues, darker.
pub(super) const SCALE: [Color32; 3] = [
    Color32::from_rgb(170, 60, 60),
    Color32::from_rgb(70, 140, 60),
    Color32::from_rgb(60, 90, 170),
];
/// Samples per curve over the clip (keys are added on top).
pub(super) const CURVE_SAMPLES: usize = 240;

fn is_skin_joint(model: &crate::asset::Model, j: usize) -> bool {
    model.skins.iter().any(|s| s.joints.contains(&j))
}

/// The skeleton as a tree with a search box; clicking a row selects the joint.
pub(super) fn outliner_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    egui::CollapsingHeader::new("Joints")
        .id_salt("outliner")
        .default_open(false)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label("find");
                let mut filter = p.inspect.filter.clone();
                ui.add(egui::TextEdit::singleline(&mut filter).desired_width(120.0));
                if !filter.is_empty() && ui.small_button("x").clicked() {
                    filter.clear();
                }
                if filter != p.inspect.filter {
                    p.set_view(ViewCommand::JointFilter(filter));
                }
            });
            ui.weak("nodes that no skin binds are marked (node)");
            let (mut picked, mut toggled) = (None, None);
            let sk = &p.stage.main.model.skeleton;
            let needle = p.inspect.filter.to_lowercase();
            egui::ScrollArea::vertical()
                .id_salt("outliner_scroll")
                .max_height(260.0)
                .show(ui, |ui| {
                    for j in 0..sk.joint_count() {
                        let name = &sk.names()[j];
                        if needle.is_empty() {
                            // The tree: rows indented by depth, children under open parents.
                            if !p.inspect.outliner_shows(sk, j) {
                                continue;
                            }
                        } else if !name.to_lowercase().contains(&needle) {
                            continue;
                        }
                        ui.horizontal_wrapped(|ui| {
                            let depth = if needle.is_empty() { sk.depth(j) } else { 0 };
                            ui.add_space(12.0 * depth as f32);
                            let has_children = sk.parents().contains(&Some(j));
                            if needle.is_empty() && has_children {
                                let open = p.inspect.outliner_open(sk, j);
                                if ui
                                    .small_button(if open { "-" } else { "+" })
                                    .on_hover_text(if open {
                                        "hide the children"
                                    } else {
                                        "show the children"
                                    })
                                    .clicked()
                                {
                                    toggled = Some(j);
                                }
                            } else {
                                ui.add_space(18.0);
                            }
                            let text = if is_skin_joint(&p.stage.main.model, j) {
                                egui::RichText::new(name)
                            } else {
                                egui::RichText::new(format!("{name} (node)")).weak()
                            };
                            let selected = p.inspect.selected == Some(j);
                            if ui.selectable_label(selected, text).clicked() {
                                picked = Some(j);
                            }
                        });
                    }
                });
            if let Some(j) = toggled {
                p.set_view(ViewCommand::ToggleOutliner(j));
            }
            if let Some(j) = picked {
                p.select_joint(Some(j));
            }
            joint_details_ui(p, ui);
        });
}

/// The selected joint's local and model transforms, with units.
fn joint_details_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(j) = p.inspect.selected else {
        ui.weak("Click a joint here or in the viewport.");
        return;
    };
    let sk = &p.stage.main.model.skeleton;
    let Some(name) = sk.names().get(j) else {
        return;
    };
    ui.separator();
    ui.label(egui::RichText::new(name).strong().color(SELECTED));
    let parent = sk.parents()[j].map_or("none (root)".to_string(), |q| sk.names()[q].clone());
    let local = p
        .stage
        .main
        .pose
        .local()
        .get(j)
        .copied()
        .unwrap_or_default();
    let order = p.inspect.euler_order;
    let e = order.angles_deg(local.rotation);
    let model = p.stage.main.pose.model_from_joint[j].w_axis;
    // In metres whatever the file's units: scaled by the parent's space (a Mixamo hips'
    // centimetres under a 0.01 armature).
    let scale = crate::stage::inspect::parent_scale(&p.stage.main.model, j);
    let t = local.translation * scale;
    super::sideways_ui(ui, "joint_details_sideways", |ui| {
        egui::Grid::new("joint_details")
            .num_columns(2)
            .show(ui, |ui| {
                ui.label("parent");
                ui.label(parent);
                ui.end_row();
                ui.label("local translation");
                ui.monospace(format!("{:.4} {:.4} {:.4} m", t.x, t.y, t.z))
                    .on_hover_text(if (scale - glam::Vec3::ONE).abs().max_element() > 1e-4 {
                        format!(
                            "the file's {:.4} {:.4} {:.4}, in a parent space scaled by {:.4} {:.4} {:.4}",
                            local.translation.x,
                            local.translation.y,
                            local.translation.z,
                            scale.x,
                            scale.y,
                            scale.z
                        )
                    } else {
                        "in the parent's space".to_string()
                    });
                ui.end_row();
                ui.label(format!("local rotation ({})", order.label()));
                ui.monospace(format!("{:.2} {:.2} {:.2} deg", e[0], e[1], e[2]));
                ui.end_row();
                ui.label("local scale");
                ui.monospace(format!(
                    "{:.4} {:.4} {:.4}",
                    local.scale.x, local.scale.y, local.scale.z
                ));
                ui.end_row();
                ui.label("world position");
                ui.monospace(format!("{:.4} {:.4} {:.4} m", model.x, model.y, model.z));
                ui.end_row();
            })
    });
    ui.horizontal_wrapped(|ui| {
        let pinned = p.inspect.pinned.contains(&j);
        if ui
            .button(if pinned { "Unpin curves" } else { "Pin curves" })
            .on_hover_text("keep this joint's curves in the curve view while you select others")
            .clicked()
        {
            p.set_view(ViewCommand::TogglePin(j));
        }
        if ui.button("Clear selection").clicked() {
            p.select_joint(None);
        }
    });
}

/// The channels that jump most at the loop wrap; clicking a row selects its joint.
pub(super) fn seam_table_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let clip = if p.timeline_hidden_by().is_some() {
        None
    } else {
        p.stage.main.timeline.clip()
    };
    let Some(clip) = clip else {
        // The row stays (greyed) so selecting a clip does not push what is below it down
        // under the pointer.
        ui.add_enabled_ui(false, |ui| {
            egui::CollapsingHeader::new("Loop seam")
                .id_salt("seam_table_off")
                .show(ui, |_| {})
                .header_response
                .on_disabled_hover_text("the loop seam of the clip on the timeline (none now)");
        });
        return;
    };
    // Every length in the table is in metres of a human-sized character (rig units
    // divided by the unit scale), so the threshold, the jumps and the velocities are one
    // unit system whatever the rig's units.
    let k = p.stage.main.model.unit_scale();
    let pop_m = p.inspect.seam_pop_m(&p.stage.main.model);
    p.refresh_seams(Some(clip));
    let seams = p.inspect.seams();
    let worst = seams.first().filter(|s| s.visible_m > pop_m);
    // The header names what pops in a label that wraps (a CollapsingHeader's title is one
    // line, cut at the panel's edge); clicking it opens the table as the triangle does.
    let mut picked = None;
    let id = ui.make_persistent_id("seam_table");
    let state =
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, false);
    let title = match worst {
        Some(s) => egui::RichText::new(format!(
            "Loop seam: {} pops {:.1} cm",
            p.stage.main.model.skeleton.names()[s.joint],
            s.visible_m / k * 100.0
        ))
        .color(WARN),
        None => egui::RichText::new("Loop seam"),
    };
    let (_, header, _) = state
        .show_header(ui, |ui| {
            ui.add(egui::Label::new(title).wrap().sense(egui::Sense::click()))
        })
        .body(|ui| {
            if seams.is_empty() {
                ui.weak("A zero-length clip has no loop.");
                return;
            }
            ui.weak(format!(
                "End against start per channel, ranked by how far the end of the chain moves \
             (pop over {:.1} cm in orange).",
                pop_m / k * 100.0
            ));
            if (k - 1.0).abs() > 0.02 {
                ui.weak(format!(
                    "Lengths read as on a human-sized character: 1 m here is {k:.3} rig units \
                 (its legs against a {:.1} m leg).",
                    crate::anim::locomotion::REFERENCE_LEG_LENGTH_M
                ));
            }
            super::sideways_ui(ui, "seams_sideways", |ui| {
                egui::Grid::new("seams")
                    .num_columns(4)
                    .striped(true)
                    .show(ui, |ui| {
                        ui.weak("joint");
                        ui.weak("jump");
                        ui.weak("at chain end");
                        ui.weak("velocity jump");
                        ui.end_row();
                        for s in seams.iter().take(12) {
                            let name = &p.stage.main.model.skeleton.names()[s.joint];
                            let text =
                                egui::RichText::new(format!("{name} {}", s.channel.as_str()));
                            let text = if s.visible_m > pop_m {
                                text.color(WARN)
                            } else {
                                text
                            };
                            if ui
                                .selectable_label(p.inspect.selected == Some(s.joint), text)
                                .clicked()
                            {
                                picked = Some(s.joint);
                            }
                            ui.monospace(seam_jump_text(s, k));
                            ui.monospace(format!("{:.2} cm", s.visible_m / k * 100.0));
                            ui.monospace(format!("{:.2} m/s", s.visible_velocity_mps / k));
                            ui.end_row();
                        }
                    })
            });
        });
    if header.inner.clicked() {
        let mut state =
            egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, false);
        state.toggle(ui);
        state.store(ui.ctx());
    }
    if let Some(j) = picked {
        p.select_joint(Some(j));
    }
}

/// A seam's own jump: degrees for a rotation, character-scaled centimetres for a
/// translation (`k` = [`crate::stage::inspect::Inspection::unit_scale`]), a factor for a scale.
pub(crate) fn seam_jump_text(s: &crate::anim::seam::ChannelSeam, k: f32) -> String {
    match s.channel {
        SeamChannel::Rotation => format!("{:.2} deg", s.position_jump.to_degrees()),
        SeamChannel::Translation => format!("{:.2} cm", s.position_jump / k * 100.0),
        SeamChannel::Scale => format!("{:.4}", s.position_jump),
    }
}

/// Onion-skin settings (View menu and the right panel).
pub(super) fn onion_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let mut onion = p.inspect.onion;
    let o = &mut onion;
    ui.checkbox(&mut o.enabled, "Onion skin")
        .on_hover_text("ghosts of the frames around the playhead: past warm, future cool");
    if o.enabled {
        ui.horizontal_wrapped(|ui| {
            ui.add(
                egui::DragValue::new(&mut o.before)
                    .range(0..=crate::stage::inspect::MAX_GHOSTS)
                    .prefix("before "),
            );
            ui.add(
                egui::DragValue::new(&mut o.after)
                    .range(0..=crate::stage::inspect::MAX_GHOSTS)
                    .prefix("after "),
            );
        });
        ui.add(
            egui::DragValue::new(&mut o.spacing_frames)
                .range(1..=60)
                .prefix("every ")
                .suffix(" frames"),
        );
        ui.horizontal(|ui| {
            // The rail takes what the value and its name leave of the panel's width.
            super::fit_sliders(ui, 50.0);
            ui.add(egui::Slider::new(&mut o.opacity, 0.05..=1.0).text("opacity"));
        });
        ui.checkbox(&mut o.at_markers, "at the sync markers instead");
        ui.horizontal_wrapped(|ui| {
            ui.label("draw as");
            for style in crate::stage::inspect::GhostStyle::ALL {
                ui.selectable_value(&mut o.style, style, style.label());
            }
        });
        if let Some(step) = p.timeline_hidden_by() {
            ui.weak(format!("Ghosts show the timeline's clip: {step}."));
        }
        // Why no ghost may show.
        if p.view.toggles.bind_pose {
            ui.weak("Hidden while View > Bind pose is on.");
        } else if o.style == crate::stage::inspect::GhostStyle::Meshes && !p.view.toggles.mesh {
            ui.weak("Mesh ghosts show with the mesh: View > Mesh.");
        }
    }
    p.set_view(ViewCommand::Onion(onion));
}

/// The A/B compare panel: B's clip or file, the phase lock, the view, the numbers and
/// the difference curve over the cycle.
pub(super) fn compare_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    // Numbers only while they describe what plays (not the last valid ones).
    let title = match &p.stage.compare {
        Some(c) if c.retarget_pairs.is_some() => "A/B compare: the retarget source".to_string(),
        Some(c) if c.valid => format!("A/B compare: max {:.1} cm", c.difference.max_m * 100.0),
        _ => "A/B compare".to_string(),
    };
    egui::CollapsingHeader::new(title)
        .id_salt("ab_compare")
        .show(ui, |ui| {
            let Some(a_clip) = p.stage.main.timeline.clip() else {
                ui.weak("No clip to compare.");
                return;
            };
            let mut on = p.stage.compare.is_some();
            if ui
                .checkbox(&mut on, "Compare the timeline's clip (A) with B")
                .changed()
            {
                if on {
                    let b = (a_clip + 1) % p.stage.main.model.clips.len();
                    p.compare_with_clip(b);
                } else {
                    p.stop_compare();
                }
            }
            let Some(c) = p.stage.compare.as_ref() else {
                return;
            };
            let b_names: Vec<String> = c.b.model.clips.iter().map(|k| k.name().to_string()).collect();
            let mut b_clip = c.b_clip();
            let mut open_dialog = false;
            ui.horizontal_wrapped(|ui| {
                ui.label("B");
                egui::ComboBox::from_id_salt("compare_b_clip")
                    .selected_text(b_names.get(b_clip).cloned().unwrap_or_default())
                    .show_ui(ui, |ui| {
                        for (i, n) in b_names.iter().enumerate() {
                            ui.selectable_value(&mut b_clip, i, n);
                        }
                    });
                match c.b.path().filter(|_| !c.b_is_a) {
                    Some(path) => {
                        ui.weak(path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default());
                    }
                    None => {
                        ui.weak("(this file)");
                    }
                }
                open_dialog = ui
                    .button("B from file...")
                    .on_hover_text("another export of the same skeleton, e.g. the previous version of this walk")
                    .clicked();
            });
            let (mut lock, mut offset, mut view) = (c.lock, c.offset, c.view);
            ui.horizontal_wrapped(|ui| {
                use crate::stage::inspect::CompareLock;
                ui.radio_value(&mut lock, CompareLock::Phase, "lock to phase");
                ui.radio_value(&mut lock, CompareLock::Markers, "sync on markers");
                if lock == CompareLock::Phase {
                    ui.add(egui::DragValue::new(&mut offset).range(0.0..=1.0).speed(0.005).prefix("B offset "))
                        .on_hover_text("fraction of B's cycle B runs ahead of A");
                }
            });
            // A row of its own: beside the lock it ran past the panel's edge.
            ui.horizontal_wrapped(|ui| {
                use crate::stage::inspect::CompareView;
                ui.label("B drawn");
                ui.radio_value(&mut view, CompareView::Overlay, "overlay");
                ui.radio_value(&mut view, CompareView::SideBySide, "side by side");
            });
            let mut commands = Vec::new();
            if b_clip != c.b_clip() {
                commands.push(StageCommand::CompareClip(b_clip));
            }
            if (lock, offset, view) != (c.lock, c.offset, c.view) {
                commands.push(StageCommand::CompareLayout { lock, offset, view });
            }
            if open_dialog {
                p.request(crate::controller::Action::OpenCompareDialog);
            }
            // Sent, then drawn as they left it (a drag of the offset keeps its numbers).
            for command in commands {
                p.send(command);
            }
            let Some(c) = p.stage.compare.as_ref() else {
                return;
            };
            if let Some(note) = &c.note {
                ui.weak(note);
            }
            if !c.valid || c.retarget_pairs.is_some() {
                return;
            }
            let d = &c.difference;
            let worst = d
                .worst_joint
                .map(|j| p.stage.main.model.skeleton.names()[j].clone())
                .unwrap_or_else(|| "none".into());
            ui.label(format!(
                "now: max {:.2} cm ({worst}), mean {:.2} cm",
                d.max_m * 100.0,
                d.mean_m * 100.0
            ));
            ui.weak("A's joints: green = same, red = 10 cm apart (scaled to the rig); B in magenta.");
            let u = {
                let dur = p.stage.main.model.clips[a_clip].duration_secs() as f64;
                if dur > 0.0 { p.stage.main.timeline.phase_secs() / dur } else { 0.0 }
            };
            let max_pts: Vec<[f64; 2]> = c.curve.iter().map(|s| [f64::from(s[0]), f64::from(s[1]) * 100.0]).collect();
            let mean_pts: Vec<[f64; 2]> = c.curve.iter().map(|s| [f64::from(s[0]), f64::from(s[2]) * 100.0]).collect();
            super::plot::legend_row_ui(
                ui,
                &[
                    ("max (cm)", Color32::from_rgb(255, 110, 90)),
                    ("mean (cm)", Color32::from_rgb(120, 200, 140)),
                    ("playhead", Color32::from_rgb(240, 70, 70)),
                ],
            );
            Plot::new("compare_curve")
                .height(120.0)
                .allow_scroll(false)
                .x_axis_label("A's phase (cycles)")
                .include_y(0.0)
                .show(ui, |plot| {
                    plot.line(Line::new("max (cm)", PlotPoints::from(max_pts)).color(Color32::from_rgb(255, 110, 90)));
                    plot.line(Line::new("mean (cm)", PlotPoints::from(mean_pts)).color(Color32::from_rgb(120, 200, 140)));
                    plot.vline(VLine::new("playhead", u).color(Color32::from_rgb(240, 70, 70)));
                });
        });
}
