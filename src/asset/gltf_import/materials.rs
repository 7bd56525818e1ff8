//! Materials and images: base colour and emissive textures, alpha mode, double-sidedness,
//! KHR_texture_transform.

use super::*;

pub(super) fn to_rgba8(data: &gltf::image::Data) -> Result<Image, ImportProblem> {
    use gltf::image::Format;
    let px = (data.width as usize)
        .checked_mul(data.height as usize)
        .ok_or("image is too large")?;
    let p = &data.pixels;
    let u16_at = |i: usize| u16::from_ne_bytes([p[2 * i], p[2 * i + 1]]);
    let f32_at =
        |i: usize| f32::from_ne_bytes([p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]]);
    let (channels, bytes_per_channel) = match data.format {
        Format::R8 => (1, 1),
        Format::R8G8 => (2, 1),
        Format::R8G8B8 => (3, 1),
        Format::R8G8B8A8 => (4, 1),
        Format::R16 => (1, 2),
        Format::R16G16 => (2, 2),
        Format::R16G16B16 => (3, 2),
        Format::R16G16B16A16 => (4, 2),
        Format::R32G32B32FLOAT => (3, 4),
        Format::R32G32B32A32FLOAT => (4, 4),
    };
    if p.len() < px * channels * bytes_per_channel {
        return Err("decoded image has fewer bytes than its size".into());
    }
    let channel = |i: usize| -> u8 {
        match bytes_per_channel {
            1 => p[i],
            2 => (u16_at(i) >> 8) as u8,
            _ => (f32_at(i).clamp(0.0, 1.0) * 255.0 + 0.5) as u8,
        }
    };
    let mut rgba8 = Vec::with_capacity(px * 4);
    for i in 0..px {
        let base = i * channels;
        let texel = match channels {
            1 => {
                let l = channel(base);
                [l, l, l, 255]
            }
            2 => {
                let l = channel(base);
                [l, l, l, channel(base + 1)]
            }
            3 => [channel(base), channel(base + 1), channel(base + 2), 255],
            _ => [
                channel(base),
                channel(base + 1),
                channel(base + 2),
                channel(base + 3),
            ],
        };
        rgba8.extend_from_slice(&texel);
    }
    Ok(Image {
        width: data.width,
        height: data.height,
        rgba8,
    })
}

/// `KHR_texture_transform` as one affine map of UVs: `T(offset) * R(rotation) * S(scale)`,
/// with the extension's rotation (counter-clockwise in UV space:
/// `u' = cos r u + sin r v`, `v' = -sin r u + cos r v`). `None` for the identity.
pub(crate) fn uv_transform(
    offset: [f32; 2],
    rotation: f32,
    scale: [f32; 2],
) -> Option<glam::Affine2> {
    if offset == [0.0, 0.0] && rotation == 0.0 && scale == [1.0, 1.0] {
        return None;
    }
    let (s, c) = rotation.sin_cos();
    let r = glam::Mat2::from_cols(Vec2::new(c, -s), Vec2::new(s, c));
    Some(
        glam::Affine2::from_translation(Vec2::from(offset))
            * glam::Affine2::from_mat2(r)
            * glam::Affine2::from_scale(Vec2::from(scale)),
    )
}

impl Importer<'_> {
    /// The decoded image of a texture (decoded once per glTF image, cached in
    /// `image_of`), or `None` with a warning when it cannot be read; `role` names the slot.
    pub(super) fn texture_image(
        &mut self,
        texture: &gltf::Texture<'_>,
        tex_coord: u32,
        role: &str,
        element: &str,
        images: &mut Vec<Image>,
        image_of: &mut HashMap<usize, Option<usize>>,
    ) -> Option<usize> {
        let doc = self.doc;
        if tex_coord != 0 {
            self.warn(
                element,
                format!("{role} texture uses TEXCOORD_{tex_coord}; only TEXCOORD_0 is imported"),
            );
        }
        let t = texture.index();
        let source = doc.as_json().textures[t].source.value();
        if source >= doc.images().len() {
            self.warn(
                element,
                format!("{role} texture {t} has no image this importer can read; drawn without it"),
            );
            return None;
        }
        let image = texture.source();
        let gi = image.index();
        if let Some(&cached) = image_of.get(&gi) {
            return cached;
        }
        // A decoder panic on a corrupt image costs the texture, not the file.
        let result = panic::catch_unwind(AssertUnwindSafe(|| self.decode_image(&image)))
            .unwrap_or_else(|p| {
                Err(format!("the decoder failed: {}", panic_message(p.as_ref())).into())
            });
        let decoded = match result {
            Ok(img) => {
                self.total_image_bytes += img.rgba8.len();
                if self.total_image_bytes > MAX_TOTAL_IMAGE_BYTES {
                    self.warn(
                        &format!("image {gi}"),
                        "skipped: the file's images exceed the size limit",
                    );
                    None
                } else {
                    images.push(img);
                    Some(images.len() - 1)
                }
            }
            Err(e) => {
                self.warn(
                    &format!("image {gi}"),
                    format!(
                        "cannot be decoded ({e}); {element} is drawn without its {role} texture"
                    ),
                );
                None
            }
        };
        image_of.insert(gi, decoded);
        decoded
    }

    pub(super) fn materials(&mut self) -> (Vec<Material>, Vec<Image>) {
        let doc = self.doc;
        let mut images = Vec::new();
        let mut image_of: HashMap<usize, Option<usize>> = HashMap::new();
        let mut materials = Vec::new();
        for material in doc.materials() {
            let m = material.index().unwrap_or(materials.len());
            let element = format!("material {m}");
            let pbr = material.pbr_metallic_roughness();
            let mut factor = Vec4::from(pbr.base_color_factor());
            if !factor.is_finite() {
                self.warn(&element, "base colour factor is not finite; white is used");
                factor = Vec4::ONE;
            }
            let mut base_color_image = None;
            let transform = pbr
                .base_color_texture()
                .and_then(|info| info.texture_transform());
            let uv = match &transform {
                Some(t) => {
                    if t.tex_coord().is_some_and(|c| c != 0) {
                        self.warn(
                            &element,
                            "texture transform selects another TEXCOORD; only TEXCOORD_0 is \
                             imported",
                        );
                    }
                    let m = uv_transform(t.offset(), t.rotation(), t.scale());
                    if m.is_some_and(|m| !m.is_finite()) {
                        self.warn(&element, "texture transform is not finite; ignored");
                        None
                    } else {
                        m
                    }
                }
                None => None,
            };
            self.uv_transforms.push(uv);
            if let Some(info) = pbr.base_color_texture() {
                base_color_image = self.texture_image(
                    &info.texture(),
                    info.tex_coord(),
                    "base colour",
                    &element,
                    &mut images,
                    &mut image_of,
                );
            }
            let mut emissive_factor = Vec3::from(material.emissive_factor());
            if !emissive_factor.is_finite() {
                self.warn(
                    &element,
                    "emissive factor is not finite; no emission is used",
                );
                emissive_factor = Vec3::ZERO;
            }
            let emissive_image = match material.emissive_texture() {
                Some(info) => self.texture_image(
                    &info.texture(),
                    info.tex_coord(),
                    "emissive",
                    &element,
                    &mut images,
                    &mut image_of,
                ),
                None => None,
            };
            let alpha_mode = match material.alpha_mode() {
                gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                gltf::material::AlphaMode::Mask => {
                    let cutoff = material.alpha_cutoff().unwrap_or(0.5);
                    if cutoff.is_finite() && cutoff >= 0.0 {
                        AlphaMode::Mask(cutoff)
                    } else {
                        self.warn(
                            &element,
                            format!("alphaCutoff {cutoff} is invalid; 0.5 is used"),
                        );
                        AlphaMode::Mask(0.5)
                    }
                }
                gltf::material::AlphaMode::Blend => AlphaMode::Blend,
            };
            materials.push(Material {
                name: material
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| element.clone()),
                base_color_factor: factor,
                base_color_image,
                alpha_mode,
                double_sided: material.double_sided(),
                emissive_factor,
                emissive_image,
            });
        }
        (materials, images)
    }

    pub(super) fn decode_image(&self, image: &gltf::Image<'_>) -> Result<Image, ImportProblem> {
        match image.source() {
            gltf::image::Source::View { view, .. } => {
                // Check the range here: the gltf crate slices without checking.
                self.view_bytes(&view)?;
            }
            gltf::image::Source::Uri { uri, .. } => {
                if !uri.starts_with("data:") {
                    let path = self.resolve_relative_uri(uri)?;
                    let meta = std::fs::metadata(&path)
                        .map_err(|e| format!("cannot open '{}': {e}", path.display()))?;
                    if !meta.is_file() {
                        return Err(format!("'{}' is not a regular file", path.display()).into());
                    }
                    if meta.len() > MAX_EXTERNAL_IMAGE_BYTES {
                        return Err(format!(
                            "'{}' is {} bytes, larger than this importer reads",
                            path.display(),
                            meta.len()
                        )
                        .into());
                    }
                }
            }
        }
        let data =
            gltf::image::Data::from_source(image.source(), Some(&self.base_dir), &self.buffers)
                .map_err(|e| e.to_string())?;
        to_rgba8(&data)
    }
}
