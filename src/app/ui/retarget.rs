//! The retarget panel: the quality figures of the last File > Retarget, and the bone map
//! (profile bone, source joint, target joint, how each was found), editable, applied
//! again, saved and loaded as a RON map file.

use egui::RichText;

use super::palette::WARN;
use super::Previewer;
use crate::anim::retarget::POSE_CHAINS;
use crate::controller::{Action, MapSide, ViewCommand};
use crate::stage::retarget::ChainPoseDef;

/// Below this contact agreement (0..1) the feet plant at other times than the source's.
const AGREEMENT_WARN: f32 = 0.8;
/// Above this planted-foot slide, in leg lengths a second, the feet visibly slide.
const SLIDE_WARN_LEGS_PER_SEC: f32 = 0.05;
/// Feet further than this from the source's (scaled), in leg lengths, are flagged: 10% is
/// what a retarget onto another body keeps within (issue 38's bar for a dance).
const DEVIATION_WARN_LEGS: f32 = 0.10;

pub(super) fn retarget_panel_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(s) = p.retarget.as_ref() else {
        return;
    };
    let file = s
        .source_path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The file in the body, where it wraps: a header line is never wrapped, and a mocap
    // take's name is wider than the panel.
    egui::CollapsingHeader::new("Retargeted clips")
        .id_salt("retarget_panel")
        .default_open(true)
        .show(ui, |ui| {
            ui.add(egui::Label::new(format!("Retargeted from {file}")).wrap());
            quality_ui(p, ui);
            let mapped = p.retarget.as_ref().map_or(0, |s| s.report.mapping.len());
            let edited = p.retarget.as_ref().is_some_and(|s| s.map_edited);
            let label = format!(
                "Bone map… ({mapped} of {} bones mapped{})",
                crate::anim::retarget::BONES.len(),
                if edited { ", edited" } else { "" }
            );
            if ui
                .button(label)
                .on_hover_text("which joint of the source and of the character each humanoid bone is; pick others to correct it")
                .clicked()
            {
                p.set_view(ViewCommand::ShowBoneMap(!p.view.windows.bone_map));
            }
        });
    if p.view.windows.bone_map {
        let mut open = true;
        egui::Window::new("Bone map")
            .open(&mut open)
            .default_width(440.0)
            .default_height(520.0)
            .show(ui.ctx(), |ui| mapping_ui(p, ui));
        if !open {
            p.set_view(ViewCommand::ShowBoneMap(false));
        }
    }
}

/// One row per retargeted clip: slide, contact agreement, speed and leg ratios, with a
/// warning where a foot slides or plants at other times.
fn quality_ui(p: &Previewer, ui: &mut egui::Ui) {
    let Some(s) = p.retarget.as_ref() else {
        return;
    };
    // Slide in the target's units: its leg length is the source's times the leg ratio.
    let leg_m = p.stage.main.model.leg_length_or_reference_m();
    for c in &s.report.clips {
        let slides = c.planted_foot_slide_mps / leg_m > SLIDE_WARN_LEGS_PER_SEC;
        let floats = c.contact_agreement < AGREEMENT_WARN;
        ui.label(RichText::new(&c.name).strong());
        ui.horizontal_wrapped(|ui| {
            // Each figure whole: one too long for the row starts the next row instead of
            // breaking inside ("leg" / "×1.92").
            let figure = |ui: &mut egui::Ui, text: RichText| ui.add(egui::Label::new(text).extend());
            let slide = RichText::new(format!("slide {:.3} m/s", c.planted_foot_slide_mps));
            figure(ui, if slides { slide.color(WARN) } else { slide })
                .on_hover_text(if c.source_in_place {
                    "mean speed of the feet against the treadmill the in-place source implies, while the source's are planted and still (0 = planted)"
                } else {
                    "mean horizontal speed of the feet while the source's are planted and still (0 = planted)"
                });
            let contact = RichText::new(format!("contact {:.2}", c.contact_agreement));
            figure(ui, if floats { contact.color(WARN) } else { contact })
                .on_hover_text("how well the feet plant when the source's do: overlap of the planted times, 0..1");
            figure(ui, RichText::new(format!("speed ×{:.2}", c.speed_ratio)))
                .on_hover_text("root speed / the source's");
            figure(ui, RichText::new(format!("leg ×{:.2}", c.leg_ratio)))
                .on_hover_text("leg length / the source's");
            let strays = c.source_foot_deviation.max_legs > DEVIATION_WARN_LEGS;
            let dev = RichText::new(format!(
                "feet off {:.0}% (max {:.0}%)",
                c.source_foot_deviation.mean_legs * 100.0,
                c.source_foot_deviation.max_legs * 100.0
            ));
            figure(ui, if strays { dev.color(WARN) } else { dev })
                .on_hover_text("distance of the feet from the source's feet scaled by the leg ratio, in leg lengths: mean over the clip (largest); other proportions (hip width) count too");
        });
        let mut warnings = Vec::new();
        if c.source_foot_deviation.max_legs > DEVIATION_WARN_LEGS {
            // Short: the right panel scrolls sideways, so a long line is cut, not wrapped
            // (issue 39's panel widths).
            warnings.push(format!(
                "feet stray up to {:.0}% of a leg",
                c.source_foot_deviation.max_legs * 100.0
            ));
        }
        if slides || floats {
            let why = match (slides, floats) {
                (true, true) => "feet slide and plant at other times than the source's",
                (true, false) => "planted feet slide",
                _ => "feet plant at other times than the source's (they float or drag)",
            };
            warnings.push(why.to_string());
        }
        // The UI font has no warning sign glyph: the colour says it.
        for w in warnings {
            ui.add(egui::Label::new(RichText::new(w).color(WARN)).wrap());
        }
    }
}

/// The bone map: every profile bone with its source and target joints, editable.
fn mapping_ui(p: &mut Previewer, ui: &mut egui::Ui) {
    let Some(s) = p.retarget.as_ref() else {
        return;
    };
    let source_joints: Vec<String> = p
        .stage
        .compare
        .as_ref()
        .filter(|c| c.retarget_pairs.is_some())
        .map(|c| c.b.model.skeleton.names().to_vec())
        .unwrap_or_default();
    let target_joints: Vec<String> = p.stage.main.model.skeleton.names().to_vec();
    let rows: Vec<(&'static str, String, String, String)> = crate::anim::retarget::BONES
        .iter()
        .map(|&bone| {
            let found = s.report.mapping.iter().find(|m| m.bone == bone);
            let chosen = |side: &std::collections::BTreeMap<String, String>,
                          auto: Option<&String>| {
                side.get(bone)
                    .cloned()
                    .or_else(|| auto.cloned())
                    .unwrap_or_default()
            };
            (
                bone,
                chosen(&s.map.source, found.map(|m| &m.source)),
                chosen(&s.map.target, found.map(|m| &m.target)),
                found
                    .map(|m| m.how.clone())
                    .unwrap_or_else(|| "unmapped".into()),
            )
        })
        .collect();
    let chain_poses: Vec<(&'static str, ChainPoseDef)> = POSE_CHAINS
        .iter()
        .map(|&c| {
            let pose = s.map.chains.get(c).copied();
            (c, pose.unwrap_or(ChainPoseDef::MatchSource))
        })
        .collect();
    let edited = s.map_edited;
    let mut changes: Vec<(MapSide, &'static str, Option<String>)> = Vec::new();
    let mut pose_changes: Vec<(&'static str, ChainPoseDef)> = Vec::new();
    ui.label(RichText::new("Bone map").strong())
        .on_hover_text("each humanoid bone (VRM names) with the source's and the character's joint; pick another joint to correct it");
    egui::ScrollArea::vertical()
        .id_salt("retarget_map_scroll")
        .max_height(ui.available_height() - 40.0)
        .show(ui, |ui| {
            egui::Grid::new("retarget_map")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("bone");
                    ui.strong("source");
                    ui.strong("character");
                    ui.strong("found by");
                    ui.end_row();
                    for (bone, source, target, how) in &rows {
                        ui.label(*bone);
                        for (side, current, joints) in [
                            (MapSide::Source, source, &source_joints),
                            (MapSide::Target, target, &target_joints),
                        ] {
                            let mut picked = current.clone();
                            egui::ComboBox::from_id_salt(format!("map_{bone}_{side:?}"))
                                .selected_text(if current.is_empty() { "—" } else { current })
                                .width(120.0)
                                .show_ui(ui, |ui| {
                                    for j in joints {
                                        ui.selectable_value(&mut picked, j.clone(), j);
                                    }
                                });
                            if picked != *current {
                                changes.push((side, bone, Some(picked)));
                            }
                        }
                        ui.weak(how).on_hover_text(
                            "source/character: name (a naming table), hierarchy (the skeleton's shape), given (picked here or in a map file)",
                        );
                        ui.end_row();
                    }
                });
            ui.add_space(6.0);
            ui.label(RichText::new("Retarget pose").strong()).on_hover_text(
                "the pose the source's movement is applied to, per chain: turned to match the source's reference pose (an A-pose character then follows a T-pose clip's arms), or the character's own rest pose",
            );
            egui::Grid::new("retarget_chain_poses").show(ui, |ui| {
                for (chain, current) in &chain_poses {
                    ui.label(*chain);
                    let mut picked = *current;
                    egui::ComboBox::from_id_salt(format!("chain_pose_{chain}"))
                        .selected_text(chain_pose_label(*current))
                        .width(160.0)
                        .show_ui(ui, |ui| {
                            for option in [ChainPoseDef::MatchSource, ChainPoseDef::KeepRest] {
                                ui.selectable_value(&mut picked, option, chain_pose_label(option));
                            }
                        });
                    if picked != *current {
                        pose_changes.push((chain, picked));
                    }
                    ui.end_row();
                }
            });
        });
    for (side, bone, joint) in changes {
        p.set_retarget_bone(side, bone, joint);
    }
    for (chain, pose) in pose_changes {
        p.set_retarget_chain_pose(chain, pose);
    }
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(edited, egui::Button::new("Apply map"))
            .on_hover_text("retarget again with the joints picked here")
            .clicked()
        {
            let _ = p.apply_retarget_map();
        }
        if ui
            .button("Automatic")
            .on_hover_text(
                "forget the picked joints: the name tables and the skeleton's shape decide",
            )
            .clicked()
        {
            p.reset_retarget_map();
        }
        if ui
            .button("Save map…")
            .on_hover_text("the picked joints as a RON map file, for `stridescope retarget --map`")
            .clicked()
        {
            p.request(Action::SaveRetargetMapDialog);
        }
        if ui.button("Load map…").clicked() {
            p.request(Action::LoadRetargetMapDialog);
        }
    });
}

/// How the bone map names a chain's retarget pose.
fn chain_pose_label(pose: ChainPoseDef) -> &'static str {
    match pose {
        ChainPoseDef::MatchSource => "match the source",
        ChainPoseDef::KeepRest => "keep its rest pose",
    }
}
