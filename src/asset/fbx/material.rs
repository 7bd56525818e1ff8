//! FBX materials and their base-colour textures into the model's materials and images.

use std::collections::HashMap;
use std::path::Path;

use glam::Vec4;

use crate::{AlphaMode, Image, ImportProblem, Material};

/// Texture files larger than this are not read.
const MAX_TEXTURE_BYTES: u64 = 256 << 20;
/// Decoded texture pixels (RGBA8 bytes) over the whole file.
const MAX_TOTAL_IMAGE_BYTES: usize = 1 << 30;

/// The scene's materials (by ufbx material index) as model materials.
pub(super) struct Materials {
    of_material: HashMap<usize, usize>,
}

impl Materials {
    pub(super) fn of(&self, material: usize) -> Option<usize> {
        self.of_material.get(&material).copied()
    }

    /// Appends the scene's materials to `materials` and their textures to `images` (the
    /// model's lists, which may hold others already).
    pub(super) fn build(
        scene: &ufbx::Scene,
        path: &Path,
        materials: &mut Vec<Material>,
        images: &mut Vec<Image>,
        warnings: &mut Vec<String>,
    ) -> Self {
        let mut of_material = HashMap::new();
        let mut of_texture: HashMap<usize, Option<usize>> = HashMap::new();
        let mut image_bytes = 0usize;
        for (i, material) in scene.materials.iter().enumerate() {
            let pbr = &material.pbr;
            let colour = if pbr.base_color.has_value {
                let c = pbr.base_color.value_vec4;
                Vec4::new(c.x as f32, c.y as f32, c.z as f32, 1.0)
            } else {
                Vec4::new(0.8, 0.8, 0.8, 1.0)
            };
            let factor = if pbr.base_factor.has_value {
                pbr.base_factor.value_vec4.x as f32
            } else {
                1.0
            };
            let opacity = if pbr.opacity.has_value {
                pbr.opacity.value_vec4.x as f32
            } else {
                1.0
            };
            let mut rgba = (colour.truncate() * factor).extend(opacity.clamp(0.0, 1.0));
            if !rgba.is_finite() {
                rgba = Vec4::new(0.8, 0.8, 0.8, 1.0);
            }
            let texture = pbr.base_color.texture.as_ref().or(material
                .fbx
                .diffuse_color
                .texture
                .as_ref());
            let mut image = None;
            if let Some(texture) = texture {
                let key = texture.element.typed_id as usize;
                image = *of_texture.entry(key).or_insert_with(|| {
                    match read_texture(texture, path, &mut image_bytes) {
                        Ok(img) => {
                            images.push(img);
                            Some(images.len() - 1)
                        }
                        Err(e) => {
                            warnings.push(format!(
                                "material '{}': texture '{}': {e}; drawn without it",
                                material.element.name, texture.filename
                            ));
                            None
                        }
                    }
                });
            }
            let mut m = Material::plain(
                if material.element.name.is_empty() {
                    format!("material {i}")
                } else {
                    material.element.name.to_string()
                },
                rgba,
            );
            m.base_color_image = image;
            if rgba.w < 1.0 {
                m.alpha_mode = AlphaMode::Blend;
            }
            materials.push(m);
            of_material.insert(material.element.typed_id as usize, materials.len() - 1);
        }
        Materials { of_material }
    }
}

/// A texture's image: embedded in the file, else the file it names (as written, then
/// beside the FBX file under its relative path, then under its bare name).
fn read_texture(
    texture: &ufbx::Texture,
    path: &Path,
    total: &mut usize,
) -> Result<Image, ImportProblem> {
    let embedded: &[u8] = &texture.content;
    let bytes = if !embedded.is_empty() {
        embedded.to_vec()
    } else {
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut candidates = Vec::new();
        for name in [
            &texture.absolute_filename,
            &texture.relative_filename,
            &texture.filename,
        ] {
            let name = name.to_string().replace('\\', "/");
            if name.is_empty() {
                continue;
            }
            let p = Path::new(&name);
            if p.is_absolute() {
                candidates.push(p.to_path_buf());
            } else {
                candidates.push(dir.join(p));
            }
            if let Some(file) = p.file_name() {
                candidates.push(dir.join(file));
            }
        }
        let found = candidates
            .iter()
            .find(|c| c.is_file())
            .ok_or_else(|| "not embedded and not found beside the file".to_string())?;
        let len = std::fs::metadata(found).map(|m| m.len()).unwrap_or(0);
        if len > MAX_TEXTURE_BYTES {
            return Err(format!(
                "'{}' is {len} bytes, larger than this importer reads",
                found.display()
            )
            .into());
        }
        std::fs::read(found).map_err(|e| format!("cannot read '{}': {e}", found.display()))?
    };
    let decoded = image::load_from_memory(&bytes).map_err(|e| format!("cannot decode: {e}"))?;
    let rgba = decoded.to_rgba8();
    *total = total.saturating_add(rgba.len());
    if *total > MAX_TOTAL_IMAGE_BYTES {
        return Err("the textures are larger in all than this importer decodes".into());
    }
    Ok(Image {
        width: rgba.width(),
        height: rgba.height(),
        rgba8: rgba.into_raw(),
    })
}
