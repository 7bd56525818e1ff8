//! Offscreen colour targets and GPU -> CPU readback.

use std::path::Path;

use super::{ExportError, GpuContext, RenderError};

/// The colour format of offscreen targets (the CLI, tests and the egui viewport texture):
/// sRGB-encoded RGBA8, so the shaders write linear colour and the hardware encodes.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A colour texture to render into and, optionally, to sample (an egui viewport image)
/// or read back (PNG output).
#[derive(Debug)]
pub struct OffscreenTarget {
    /// The colour texture: render attachment, texture binding and copy source.
    pub texture: wgpu::Texture,
    /// A view of the whole texture: what the renderer draws into and egui samples.
    pub view: wgpu::TextureView,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Colour format, e.g. [`OFFSCREEN_FORMAT`].
    pub format: wgpu::TextureFormat,
}

impl OffscreenTarget {
    /// A `width` x `height` target usable as render attachment, texture binding (egui)
    /// and copy source (readback).
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        format: wgpu::TextureFormat,
    ) -> Result<Self, RenderError> {
        let max = device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::InvalidInput(format!(
                "target size {width}x{height} (each side must be 1..={max})"
            )));
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen colour"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Self {
            texture,
            view,
            width,
            height,
            format,
        })
    }

    /// Copies the texture into a mappable buffer inside `encoder`; finish with
    /// [`PendingReadback::finish`] after submitting.
    pub fn copy_out(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
    ) -> PendingReadback {
        let bytes_per_pixel = 4u32;
        let unpadded = self.width * bytes_per_pixel;
        let padded = unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: padded as u64 * self.height as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        PendingReadback {
            buffer,
            width: self.width,
            height: self.height,
            padded_row: padded,
        }
    }
}

/// A texture copy waiting for its submission to finish.
#[derive(Debug)]
pub struct PendingReadback {
    buffer: wgpu::Buffer,
    width: u32,
    height: u32,
    padded_row: u32,
}

impl PendingReadback {
    /// Maps the buffer (waiting for the GPU) and returns tightly packed RGBA8 rows.
    pub fn finish(self, ctx: &GpuContext) -> Result<RgbaImage, RenderError> {
        let bytes = map_and_read(ctx, &self.buffer, 0, self.buffer.size())?;
        let row = self.width as usize * 4;
        let mut pixels = Vec::with_capacity(row * self.height as usize);
        for y in 0..self.height as usize {
            let at = y * self.padded_row as usize;
            pixels.extend_from_slice(&bytes[at..at + row]);
        }
        Ok(RgbaImage {
            width: self.width,
            height: self.height,
            pixels,
        })
    }
}

/// An RGBA8 image (sRGB), rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Tightly packed RGBA bytes, `width * height * 4`, rows top to bottom.
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// The RGBA bytes of the pixel at column `x`, row `y` (from the top left); `x` must be
    /// below `width`, and a pixel past the end of `pixels` panics.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let at = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.pixels[at],
            self.pixels[at + 1],
            self.pixels[at + 2],
            self.pixels[at + 3],
        ]
    }

    /// Encodes as PNG (deterministic: same pixels, same bytes).
    pub fn to_png(&self) -> Result<Vec<u8>, ExportError> {
        let mut out = Vec::new();
        let encoder = image::codecs::png::PngEncoder::new(&mut out);
        image::ImageEncoder::write_image(
            encoder,
            &self.pixels,
            self.width,
            self.height,
            image::ExtendedColorType::Rgba8,
        )
        .map_err(|e| ExportError::Png(e.to_string()))?;
        Ok(out)
    }

    /// Writes a PNG file.
    pub fn save_png(&self, path: &Path) -> Result<(), ExportError> {
        let bytes = self.to_png()?;
        std::fs::write(path, bytes).map_err(|e| ExportError::io(path, "cannot write", &e))
    }

    /// Reads a PNG file (RGBA8 after conversion).
    pub fn load_png(path: &Path) -> Result<Self, ExportError> {
        let bytes = std::fs::read(path).map_err(|e| ExportError::io(path, "", &e))?;
        let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
            .map_err(|e| ExportError::codec(path, "", e))?
            .to_rgba8();
        Ok(Self {
            width: decoded.width(),
            height: decoded.height(),
            pixels: decoded.into_raw(),
        })
    }
}

/// Copies `size` bytes at `offset` of a COPY_SRC buffer to the CPU (submits and waits).
pub fn read_buffer(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, RenderError> {
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
    ctx.queue.submit([encoder.finish()]);
    map_and_read(ctx, &staging, 0, size)
}

fn map_and_read(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, RenderError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, offset..offset + size, move |result| {
        let _ = sender.send(result);
    });
    ctx.wait_idle()?;
    match receiver.recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(RenderError::Readback(e.to_string())),
        Err(_) => return Err(RenderError::Readback("the map callback never ran".into())),
    }
    let bytes = {
        let view = buffer
            .get_mapped_range(offset..offset + size)
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        view.to_vec()
    };
    buffer.unmap();
    Ok(bytes)
}
