//! The Blend panel's Edit section: phase offsets, sync modes, layer strength, mode,
//! reference and hold, each change an undoable edit of the graph's definition.

use super::Previewer;
use crate::anim::state_machine::Ease;
use crate::graph::def::{LayerMode, NodeDef, ReferenceDef, SyncMode, Weight};

/// Sync mode picker.
pub(super) fn sync_ui(
    ui: &mut egui::Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    sync: &mut SyncMode,
) {
    egui::ComboBox::from_id_salt(id)
        .selected_text(sync.label())
        .show_ui(ui, |ui| {
            for m in [SyncMode::Markers, SyncMode::Cycle, SyncMode::None] {
                ui.selectable_value(sync, m, m.label());
            }
        });
}

/// One node's editable parts: sync, and per blend input its phase offset (cycles).
pub(super) fn node_edit_ui(ui: &mut egui::Ui, id: &str, node: &mut NodeDef) {
    match node {
        NodeDef::Clip { clip, rate } => {
            ui.horizontal_wrapped(|ui| {
                ui.label(clip.as_str());
                ui.add(
                    egui::DragValue::new(rate)
                        .range(-4.0..=4.0)
                        .speed(0.01)
                        .prefix("rate "),
                );
            });
        }
        NodeDef::Blend { inputs, sync } => {
            ui.horizontal_wrapped(|ui| {
                ui.label("sync");
                sync_ui(ui, (id, "sync"), sync);
            });
            for input in inputs.iter_mut() {
                ui.horizontal_wrapped(|ui| {
                    ui.label(input.clip.as_str());
                    ui.add(
                        egui::DragValue::new(&mut input.offset)
                            .range(-1.0..=1.0)
                            .speed(0.005)
                            .prefix("offset ")
                            .suffix(" cycle"),
                    )
                    .on_hover_text("phase offset: 0.5 starts this input half a cycle later");
                    if let Weight::Fixed(w) = &mut input.weight {
                        ui.add(
                            egui::DragValue::new(w)
                                .range(0.0..=1.0)
                                .speed(0.005)
                                .prefix("w "),
                        );
                    }
                });
            }
        }
        NodeDef::BlendSpace1D { samples, sync, .. } => {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("1D space ({} samples), sync", samples.len()));
                sync_ui(ui, (id, "sync"), sync);
            });
        }
        NodeDef::BlendSpace2D { samples, sync, .. } => {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("2D space ({} samples), sync", samples.len()));
                sync_ui(ui, (id, "sync"), sync);
            });
        }
        NodeDef::StateMachine { machine, sync } => {
            ui.horizontal_wrapped(|ui| {
                ui.label("cross-fade sync");
                sync_ui(ui, (id, "sm_sync"), sync);
            });
            for state in &mut machine.states {
                ui.label(egui::RichText::new(state.name.as_str()).strong());
                ui.indent((id, state.name.as_str()), |ui| {
                    node_edit_ui(ui, &format!("{id}/{}", state.name), &mut state.node)
                });
            }
            // Cross-fades: duration and curve of every transition.
            if !machine.transitions.is_empty() {
                ui.label(egui::RichText::new("Transitions").strong());
            }
            for (i, t) in machine.transitions.iter_mut().enumerate() {
                ui.horizontal_wrapped(|ui| {
                    ui.label(format!("{} -> {}", t.from, t.to));
                    ui.add(
                        egui::DragValue::new(&mut t.duration_secs)
                            .range(0.0..=5.0)
                            .speed(0.01)
                            .max_decimals(2)
                            .suffix(" s"),
                    )
                    .on_hover_text("cross-fade duration (0 switches at once)");
                    let label = match &t.ease {
                        Ease::Smoothstep => "smoothstep",
                        Ease::Linear => "linear",
                        Ease::Curve(_) => "custom curve",
                    };
                    egui::ComboBox::new((id, "ease", i), "curve")
                        .selected_text(label)
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut t.ease, Ease::Smoothstep, "smoothstep");
                            ui.selectable_value(&mut t.ease, Ease::Linear, "linear");
                            // Slow in, then fast: the incoming state takes over late.
                            let late = Ease::Curve(vec![(0.0, 0.0), (0.6, 0.25), (1.0, 1.0)]);
                            ui.selectable_value(&mut t.ease, late, "late (slow in)");
                            let early = Ease::Curve(vec![(0.0, 0.0), (0.4, 0.75), (1.0, 1.0)]);
                            ui.selectable_value(&mut t.ease, early, "early (fast in)");
                        });
                });
            }
        }
    }
}

/// The Edit section: phase offsets, sync modes, layer strength, mode and reference, with
/// undo (Ctrl+Z) and redo (Ctrl+Shift+Z). Each change rebuilds the graph from its
/// definition at the same time and parameters.
pub(super) fn graph_edit_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(session) = p.graph() else {
        return;
    };
    if p.source().is_drive_only() {
        return;
    }
    let (can_undo, can_redo) = (session.can_undo(), session.can_redo());
    let model = &p.stage.main.model;
    let mut def = session.graph.def().clone();
    let before = def.clone();
    let mut undo = false;
    let mut redo = false;
    egui::CollapsingHeader::new("Edit graph")
        .id_salt("graph_edit")
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                undo = ui
                    .add_enabled(can_undo, egui::Button::new("Undo"))
                    .on_hover_text("Ctrl+Z")
                    .clicked();
                redo = ui
                    .add_enabled(can_redo, egui::Button::new("Redo"))
                    .on_hover_text("Ctrl+Shift+Z")
                    .clicked();
            });
            node_edit_ui(ui, "base", &mut def.base);
            for layer in &mut def.layers {
                ui.separator();
                ui.label(
                    egui::RichText::new(format!("layer {} ({})", layer.name, layer.clip)).strong(),
                );
                ui.horizontal_wrapped(|ui| {
                    match &mut layer.weight {
                        Weight::Fixed(w) => {
                            ui.add(
                                egui::DragValue::new(w)
                                    .range(-1.0..=2.0)
                                    .speed(0.01)
                                    .prefix("strength "),
                            )
                            .on_hover_text("additive layers take -1..1 (and beyond)");
                        }
                        Weight::Param(name) => {
                            ui.weak(format!("strength: parameter '{name}'"));
                        }
                    }
                    egui::ComboBox::from_id_salt(("layer_mode", layer.name.as_str()))
                        .selected_text(match layer.mode {
                            LayerMode::Additive => "additive",
                            LayerMode::Override => "override",
                        })
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut layer.mode, LayerMode::Additive, "additive");
                            ui.selectable_value(&mut layer.mode, LayerMode::Override, "override");
                        });
                });
                if layer.mode == LayerMode::Additive {
                    reference_ui(ui, model, &layer.name, &mut layer.reference);
                }
                hold_ui(ui, model, &layer.clip, &mut layer.hold);
                super::mask::mask_edit_ui(ui, &layer.name, &model.skeleton, &mut layer.mask);
            }
        });
    if undo {
        p.undo_graph_edit();
    } else if redo {
        p.redo_graph_edit();
    } else if def != before {
        p.edit_graph(|d| *d = def);
    }
}

/// Plays the layer's clip with the graph, or holds it at one clip time (a pose clip).
pub(super) fn hold_ui(
    ui: &mut egui::Ui,
    model: &crate::asset::Model,
    clip: &str,
    hold: &mut Option<f32>,
) {
    ui.horizontal_wrapped(|ui| {
        let mut held = hold.is_some();
        if ui
            .checkbox(&mut held, "hold at")
            .on_hover_text("show the layer's clip at one time instead of playing it (a pose clip)")
            .changed()
        {
            *hold = held.then_some(0.0);
        }
        if let Some(t) = hold {
            let duration = model
                .find_clip(clip)
                .map_or(0.0, |i| model.clips[i].duration_secs());
            ui.add(
                egui::DragValue::new(t)
                    .range(0.0..=duration)
                    .speed(0.01)
                    .suffix(" s"),
            )
            .on_hover_text("clip time the layer is held at");
        }
    });
}

/// The pose an additive layer's difference is taken from: its own first frame, the bind
/// pose, or any frame of any clip (picked by clip, then by time).
pub(super) fn reference_ui(
    ui: &mut egui::Ui,
    model: &crate::asset::Model,
    layer: &str,
    reference: &mut ReferenceDef,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label("reference");
        let text = match &*reference {
            ReferenceDef::FirstFrame => "first frame".to_string(),
            ReferenceDef::BindPose => "bind pose".to_string(),
            ReferenceDef::ClipFrame { clip, .. } => format!("frame of {clip}"),
        };
        egui::ComboBox::from_id_salt(("layer_ref", layer))
            .selected_text(text)
            .show_ui(ui, |ui| {
                ui.selectable_value(reference, ReferenceDef::FirstFrame, "first frame");
                ui.selectable_value(reference, ReferenceDef::BindPose, "bind pose");
                for c in &model.clips {
                    let chosen =
                        matches!(&*reference, ReferenceDef::ClipFrame { clip, .. } if clip == c.name());
                    if ui
                        .selectable_label(chosen, format!("frame of {}", c.name()))
                        .clicked()
                        && !chosen
                    {
                        *reference = ReferenceDef::ClipFrame {
                            clip: c.name().to_string(),
                            time_secs: 0.0,
                        };
                    }
                }
            });
        if let ReferenceDef::ClipFrame { clip, time_secs } = reference {
            let duration = model
                .find_clip(clip)
                .map_or(0.0, |i| model.clips[i].duration_secs());
            ui.add(
                egui::DragValue::new(time_secs)
                    .range(0.0..=duration)
                    .speed(0.01)
                    .suffix(" s"),
            )
            .on_hover_text("clip time of the reference frame");
        }
    });
}
