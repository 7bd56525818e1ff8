//! Preview export for `stridescope render`: a frame sequence as an animated GIF or PNG
//! (pure Rust), or as an MP4 through `ffmpeg` when it is on PATH.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::render::RgbaImage;

/// Writes `frames` (all the same size) as a looping GIF at `fps`. GIF stores delays in
/// hundredths of a second, so 12 fps plays at 1/12 s rounded to 0.08 s.
pub fn write_gif(path: &Path, frames: &[RgbaImage], fps: f32) -> Result<(), String> {
    use image::codecs::gif::{GifEncoder, Repeat};
    let file = create(path)?;
    // Speed 10 of 1..=30: NeuQuant palette quality close to the best at a fraction of
    // its time.
    let mut encoder = GifEncoder::new_with_speed(std::io::BufWriter::new(file), 10);
    encoder
        .set_repeat(Repeat::Infinite)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let secs = std::time::Duration::try_from_secs_f32(1.0 / fps)
        .map_err(|_| format!("{}: {fps} fps has no frame delay", path.display()))?;
    let delay = image::Delay::from_saturating_duration(secs);
    for f in frames {
        let buffer = image::RgbaImage::from_raw(f.width, f.height, f.pixels.clone())
            .ok_or_else(|| format!("{}: frame buffer has the wrong size", path.display()))?;
        encoder
            .encode_frame(image::Frame::from_parts(buffer, 0, 0, delay))
            .map_err(|e| format!("{}: cannot write GIF frame: {e}", path.display()))?;
    }
    Ok(())
}

/// Writes `frames` as a looping animated PNG at `fps` (lossless, full colour).
pub fn write_apng(path: &Path, frames: &[RgbaImage], fps: f32) -> Result<(), String> {
    let first = frames.first().ok_or("no frames to write")?;
    let file = create(path)?;
    let err = |e: png::EncodingError| format!("{}: cannot write APNG: {e}", path.display());
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), first.width, first.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_animated(frames.len() as u32, 0).map_err(err)?;
    // The delay is a u16 fraction: hundredths of a frame keep 29.97 fps exact enough.
    let den = (fps * 100.0).round().clamp(1.0, f32::from(u16::MAX)) as u16;
    encoder.set_frame_delay(100, den).map_err(err)?;
    let mut writer = encoder.write_header().map_err(err)?;
    for f in frames {
        writer.write_image_data(&f.pixels).map_err(err)?;
    }
    writer.finish().map_err(err)
}

/// What `render --mp4` says when there is no encoder to run.
pub const NO_FFMPEG: &str =
    "--mp4 needs ffmpeg on PATH (e.g. `apt install ffmpeg`); --gif and --apng work without it";

/// Whether an `ffmpeg` runs here.
pub fn ffmpeg_available() -> bool {
    Command::new("ffmpeg")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Pipes `frames` into `ffmpeg` as raw RGBA and encodes H.264 in yuv420p (what players
/// accept), padding odd sizes to even ones as that format needs.
pub fn write_mp4(path: &Path, frames: &[RgbaImage], fps: f32) -> Result<(), String> {
    let first = frames.first().ok_or("no frames to write")?;
    let mut child = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo"])
        .args(["-pix_fmt", "rgba", "-s"])
        .arg(format!("{}x{}", first.width, first.height))
        .arg("-r")
        .arg(format!("{fps}"))
        .args(["-i", "-", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"])
        .args(["-pix_fmt", "yuv420p", "-movflags", "+faststart"])
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => NO_FFMPEG.to_string(),
            _ => format!("cannot run ffmpeg: {e}"),
        })?;
    {
        let mut stdin = child.stdin.take().ok_or("ffmpeg has no stdin")?;
        for f in frames {
            if stdin.write_all(&f.pixels).is_err() {
                break; // ffmpeg stopped early; its stderr says why.
            }
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("ffmpeg: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{}: ffmpeg failed ({}): {}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

fn create(path: &Path) -> Result<std::fs::File, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    }
    std::fs::File::create(path).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
