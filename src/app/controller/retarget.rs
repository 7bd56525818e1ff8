//! File > Retarget onto this character: the source's clips join the character's clip
//! list, the source plays beside it (A/B compare's B), and the mapping panel edits the
//! bone map, applies it again and saves or loads it as a RON map file (the format of
//! `stridescope retarget --map`).

use std::path::{Path, PathBuf};

use super::*;
use crate::stage::retarget::{retarget_models_with, ChainPoseDef, MapFile, RetargetReport};
use crate::{AppError, Context as _};

/// Which side of the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapSide {
    /// The source's skeleton: the rig the clips come from.
    Source,
    /// The character's skeleton: the rig the clips go onto.
    Target,
}

/// The last retarget: where its source is, the user's bones over the automatic maps,
/// the mapping and the quality figures it gave, and where its clips are in the clip list.
pub struct RetargetSession {
    /// The file or folder the clips were retargeted from.
    pub source_path: PathBuf,
    /// Bones chosen by hand (bone -> joint name per side): what a map file holds.
    pub map: MapFile,
    /// `map` changed since the clips were made (the panel offers to apply it).
    pub map_edited: bool,
    /// The mapping and quality figures the last retarget gave (what `retarget --json`
    /// prints).
    pub report: RetargetReport,
    /// The retargeted clips' indices in the character's clip list.
    pub clips: std::ops::Range<usize>,
}

impl Previewer {
    /// Retargets every clip of `path` (a glTF, FBX or BVH file, or a folder of BVH/FBX)
    /// onto the character and adds them to its clip list (a name already taken gets
    /// " (retargeted)"), with foot IK; selects the first and shows the source beside it.
    /// The status bar gives the worst quality figures. On failure the character is
    /// unchanged and the error is shown.
    pub fn retarget_from(&mut self, path: &Path) -> Result<(), AppError> {
        self.retarget_with(path, MapFile::default(), None)
    }

    /// Retargets again from the session's source with its edited map, replacing the
    /// clips the last retarget added. A map that does not work keeps the clips and says
    /// why.
    pub fn apply_retarget_map(&mut self) -> Result<(), AppError> {
        let Some(s) = self.retarget.as_ref() else {
            return Err("retarget: nothing retargeted yet".into());
        };
        let (path, map, clips) = (s.source_path.clone(), s.map.clone(), s.clips.clone());
        self.retarget_with(&path, map, Some(clips))
    }

    /// Chooses the joint (by name; `None`: back to the automatic choice) of profile bone
    /// `bone` on one side of the map; [`Self::apply_retarget_map`] uses it.
    pub fn set_retarget_bone(&mut self, side: MapSide, bone: &str, joint: Option<String>) {
        let Some(s) = self.retarget.as_mut() else {
            return;
        };
        let entries = match side {
            MapSide::Source => &mut s.map.source,
            MapSide::Target => &mut s.map.target,
        };
        let before = entries.get(bone).cloned();
        match joint {
            Some(j) => {
                entries.insert(bone.to_string(), j);
            }
            None => {
                entries.remove(bone);
            }
        }
        if entries.get(bone) != before.as_ref() {
            s.map_edited = true;
        }
    }

    /// Chooses chain `chain`'s retarget pose ([`crate::anim::retarget::POSE_CHAINS`]
    /// names; matching the source is the default and is not written to the map);
    /// [`Self::apply_retarget_map`] uses it.
    pub fn set_retarget_chain_pose(&mut self, chain: &str, pose: ChainPoseDef) {
        let Some(s) = self.retarget.as_mut() else {
            return;
        };
        if !crate::anim::retarget::POSE_CHAINS.contains(&chain) {
            return;
        }
        let before = s.map.chains.get(chain).copied();
        match pose {
            ChainPoseDef::MatchSource => s.map.chains.remove(chain),
            other => s.map.chains.insert(chain.to_string(), other),
        };
        if s.map.chains.get(chain).copied() != before {
            s.map_edited = true;
        }
    }

    /// Forgets every joint picked in the map: the name tables and the skeleton's shape
    /// decide again on the next [`Self::apply_retarget_map`] (the chains' retarget poses
    /// stay as chosen).
    pub fn reset_retarget_map(&mut self) {
        if let Some(s) = self.retarget.as_mut() {
            let had = !s.map.source.is_empty() || !s.map.target.is_empty();
            s.map.source.clear();
            s.map.target.clear();
            s.map
                .chains
                .retain(|chain, _| crate::anim::retarget::POSE_CHAINS.contains(&chain.as_str()));
            s.map_edited |= had;
        }
    }

    /// Writes the session's map as RON to `path` (the `--map` format). Only a `.ron`
    /// file: a typed path must not overwrite the character or a take.
    /// File > Save retargeted clips: the character's own file (a GLB) with the clips the
    /// last retarget added, as `retarget --out` writes it, at `path`.
    pub fn save_retargeted_clips(&mut self, path: &Path) -> Result<(), AppError> {
        let result = (|| -> Result<usize, AppError> {
            let s = self
                .retarget
                .as_ref()
                .ok_or("nothing retargeted yet (File > Retarget onto this character)")?;
            let own = self
                .stage
                .main
                .path
                .as_ref()
                .ok_or("the built-in demo has no file to write the clips into")?;
            let bytes = std::fs::read(own).map_err(|e| AppError::file(own, "read", e))?;
            if !bytes.starts_with(b"glTF") {
                return Err(format!(
                    "{}: the clips are written into the character's GLB; this character is not one",
                    own.display()
                )
                .into());
            }
            let model = &self.stage.main.model;
            let clips: Vec<crate::anim::Clip> = model
                .clips
                .get(s.clips.clone())
                .map(<[crate::anim::Clip]>::to_vec)
                .unwrap_or_default();
            let written = crate::stage::retarget::glb_with_clips(&bytes, model, &clips)
                .with_context(|| own.display().to_string())?;
            std::fs::write(path, written).map_err(|e| AppError::file(path, "write", e))?;
            Ok(clips.len())
        })();
        match &result {
            Ok(n) => self.set_message(
                format!(
                    "saved the character with {n} retargeted clip(s) to {}",
                    path.display()
                ),
                false,
            ),
            Err(e) => self.set_message(e.report(), true),
        }
        result.map(|_| ())
    }

    /// Saves the session's bone map to `path` as RON (the `--map` format; another extension
    /// is refused); the outcome shows in the status bar.
    pub fn save_retarget_map(&mut self, path: &Path) -> Result<(), AppError> {
        let Some(s) = self.retarget.as_ref() else {
            return Err("retarget: nothing retargeted yet".into());
        };
        let result = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ron"))
        {
            s.map.write(path).map_err(AppError::from)
        } else {
            Err(format!("{}: a bone map is saved as a .ron file", path.display()).into())
        };
        match &result {
            Ok(()) => self.set_message(format!("saved the bone map to {}", path.display()), false),
            Err(e) => self.set_message(e.report(), true),
        }
        result
    }

    /// Reads a map file (RON, the `--map` format) and retargets again with it.
    pub fn load_retarget_map(&mut self, path: &Path) -> Result<(), AppError> {
        let result = MapFile::read(path).map_err(AppError::from).and_then(|map| {
            let Some(s) = self.retarget.as_mut() else {
                return Err("retarget: nothing retargeted yet".into());
            };
            s.map = map;
            s.map_edited = true;
            self.apply_retarget_map()
        });
        if let Err(e) = &result {
            self.set_message(e.report(), true);
        }
        result
    }

    /// Retargets `path`'s clips with `map`, replacing the clips in `replace` (a range of
    /// the clip list) when given.
    fn retarget_with(
        &mut self,
        path: &Path,
        map: MapFile,
        replace: Option<std::ops::Range<usize>>,
    ) -> Result<(), AppError> {
        let result = (|| -> Result<_, AppError> {
            let source = if path.is_dir() {
                crate::asset::folder::load_folder_reduced(path, &self.loads.options, &|_, _| {})?
            } else {
                crate::asset::load_with(path, &self.loads.options)?
            };
            let mut model = self.stage.main.model.clone();
            if let Some(r) = &replace {
                // The clips a retarget added are the last ones (nothing else appends).
                model.clips.truncate(r.start.min(model.clips.len()));
                model.arrangement.forget_clips_from(r.start);
            }
            let (clips, report) = retarget_models_with(
                &source,
                &model,
                &[],
                &crate::anim::retarget::RetargetOptions::default(),
                &map,
            )?;
            let first_new = model.clips.len();
            // Which source clip each new clip came from, by the new clip's name.
            let mut pairs = Vec::new();
            for clip in clips {
                let from = source.find_clip(clip.name());
                let mut name = clip.name().to_string();
                if model.find_clip(&name).is_some() {
                    name = format!("{name} (retargeted)");
                }
                let mut k = 2;
                while model.find_clip(&name).is_some() {
                    name = format!("{} (retargeted {k})", clip.name());
                    k += 1;
                }
                if let Some(from) = from {
                    pairs.push((name.clone(), from));
                }
                model.clips.push(clip.renamed(name));
            }
            model.analysis = Default::default();
            Ok((model, source, pairs, report, first_new))
        })();
        let (model, source, pairs, report, first_new) = match result {
            Ok(r) => r,
            Err(e) => {
                self.set_message(
                    format!("{} (kept {})", e.report(), self.stage.main.model.source),
                    true,
                );
                return Err(e);
            }
        };
        let worst_slide = report
            .clips
            .iter()
            .map(|c| c.planted_foot_slide_mps)
            .fold(0.0f32, f32::max);
        let worst_agreement = report
            .clips
            .iter()
            .map(|c| c.contact_agreement)
            .fold(1.0f32, f32::min);
        let summary = format!(
            "retargeted {} clip(s) from {} ({} bones mapped): planted-foot slide up to {:.3} m/s, contact agreement from {:.2}",
            report.clips.len(),
            path.display(),
            report.mapping.len(),
            worst_slide,
            worst_agreement
        );
        let own_path = self.stage.main.path.clone();
        let show_map = self.view.windows.bone_map;
        // The same file with more clips: kept as a reload (mode, rate, selection).
        self.replace_model(model, own_path);
        // The bone-map window stays open over an Apply.
        self.view.windows.bone_map = show_map;
        let end = self.stage.main.model.clips.len();
        if first_new < end {
            self.select_clip(first_new);
        }
        // The source plays beside its retargeted clips, on A's timeline.
        let pairs: Vec<(usize, usize)> = pairs
            .iter()
            .filter_map(|(name, from)| Some((self.stage.main.model.find_clip(name)?, *from)))
            .collect();
        self.loads.compare_files_opened += 1;
        self.stage.compare = Some(crate::stage::inspect::AbCompare::retarget_source(
            &self.stage.main.model,
            path.to_path_buf(),
            source,
            pairs,
            self.loads.compare_files_opened,
        ));
        self.retarget = Some(RetargetSession {
            source_path: path.to_path_buf(),
            map,
            map_edited: false,
            report,
            clips: first_new..end,
        });
        self.evaluate_pose();
        // Frame both: the source stands beside the character.
        self.view.frame_pending = true;
        self.set_message(summary, false);
        Ok(())
    }
}
