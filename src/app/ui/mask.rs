//! The mask picker of a layer: the joint tree with each joint's resulting weight, where a
//! joint can take a weight for its whole branch (`subtrees` in the graph file) or for
//! itself alone (`ramp`), as the RON definition spells them. It edits a [`MaskDef`] in
//! place; the Edit section turns the change into an undoable graph edit.

use egui::Color32;

use crate::anim::blend::mask::JointMask;
use crate::anim::Skeleton;
use crate::graph::def::MaskDef;

/// Joints drawn at once before the list scrolls.
const LIST_HEIGHT_PX: f32 = 220.0;

/// Edits `mask` (`None`: every joint at 1) for the layer `id`.
pub(super) fn mask_edit_ui(
    ui: &mut egui::Ui,
    id: &str,
    skeleton: &Skeleton,
    mask: &mut Option<MaskDef>,
) {
    let mut masked = mask.is_some();
    ui.horizontal_wrapped(|ui| {
        if ui
            .checkbox(&mut masked, "mask")
            .on_hover_text("off: the layer acts on every joint")
            .changed()
        {
            *mask = masked.then(MaskDef::default);
        }
        if let Some(m) = mask {
            ui.weak(format!(
                "{} branch(es), {} single joint(s)",
                m.subtrees.len(),
                m.ramp.len()
            ));
        }
    });
    let Some(def) = mask else {
        return;
    };
    let filter_id = ui.make_persistent_id(("mask_filter", id));
    let mut filter: String = ui.data_mut(|d| d.get_temp(filter_id).unwrap_or_default());
    ui.horizontal_wrapped(|ui| {
        ui.label("find joint");
        ui.add(egui::TextEdit::singleline(&mut filter).desired_width(140.0));
    });
    ui.data_mut(|d| d.insert_temp(filter_id, filter.clone()));
    let subtrees: Vec<(&str, f32)> = def.subtrees.iter().map(|(n, w)| (n.as_str(), *w)).collect();
    let ramp: Vec<(&str, f32)> = def.ramp.iter().map(|(n, w)| (n.as_str(), *w)).collect();
    let weights = match JointMask::from_names(skeleton, &subtrees, &ramp) {
        Ok(m) => m.weights().to_vec(),
        Err(e) => {
            ui.colored_label(Color32::from_rgb(255, 120, 120), e.to_string());
            vec![0.0; skeleton.joint_count()]
        }
    };
    let needle = filter.to_lowercase();
    // The checkboxes first: in a narrow side panel the grid scrolls sideways, and what
    // the user clicks stays in view.
    egui::ScrollArea::both()
        .id_salt(("mask_tree", id))
        .max_height(LIST_HEIGHT_PX)
        .show(ui, |ui| {
            egui::Grid::new(("mask_grid", id))
                .num_columns(4)
                .spacing([8.0, 2.0])
                .show(ui, |ui| {
                    ui.weak("whole branch");
                    ui.weak("single joint");
                    ui.weak("weight");
                    ui.weak("name");
                    ui.end_row();
                    for (j, name) in skeleton.names().iter().enumerate() {
                        if !needle.is_empty() && !name.to_lowercase().contains(&needle) {
                            continue;
                        }
                        entry_ui(ui, ("branch", id, j), name, &mut def.subtrees, "branch");
                        entry_ui(ui, ("single", id, j), name, &mut def.ramp, "joint");
                        ui.add(
                            egui::ProgressBar::new(weights[j].clamp(0.0, 1.0))
                                .desired_width(48.0)
                                .text(format!("{:.2}", weights[j])),
                        );
                        ui.horizontal_wrapped(|ui| {
                            ui.add_space(10.0 * skeleton.depth(j) as f32);
                            ui.label(name);
                        });
                        ui.end_row();
                    }
                });
        });
}

/// A checkbox that adds or removes `name`'s entry in `entries`, and its weight.
fn entry_ui(
    ui: &mut egui::Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    name: &str,
    entries: &mut Vec<(String, f32)>,
    what: &str,
) {
    ui.push_id(id, |ui| {
        ui.horizontal_wrapped(|ui| {
            let at = entries.iter().position(|(n, _)| n == name);
            let mut on = at.is_some();
            let hover = match what {
                "branch" => format!("{name} and every joint below it take this weight"),
                _ => format!("{name} alone takes this weight (after the branches)"),
            };
            if ui.checkbox(&mut on, what).on_hover_text(hover).changed() {
                match (on, at) {
                    (true, None) => entries.push((name.to_string(), 1.0)),
                    (false, Some(i)) => {
                        entries.remove(i);
                    }
                    _ => {}
                }
            }
            if let Some(i) = entries.iter().position(|(n, _)| n == name) {
                ui.add(
                    egui::DragValue::new(&mut entries[i].1)
                        .range(0.0..=1.0)
                        .speed(0.01)
                        .max_decimals(2),
                );
            }
        });
    });
}
