//! Preview export for `stridescope render`: a frame sequence as an animated GIF or PNG
//! (pure Rust), or as an MP4 through `ffmpeg` when it is on PATH.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::{ExportError, RgbaImage};

/// The formats a preview export writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Looping animated GIF (256 colours a frame).
    Gif,
    /// Looping animated PNG (lossless, full colour).
    Apng,
    /// H.264 MP4 through `ffmpeg`.
    Mp4,
}

impl ExportFormat {
    /// The format a file name asks for: `.gif`, `.png`/`.apng` or `.mp4`.
    pub fn from_path(path: &Path) -> Result<Self, ExportError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        match ext.as_str() {
            "gif" => Ok(Self::Gif),
            "png" | "apng" => Ok(Self::Apng),
            "mp4" => Ok(Self::Mp4),
            _ => Err(ExportError::UnknownFormat {
                path: path.to_path_buf(),
            }),
        }
    }
}

type GifSink = image::codecs::gif::GifEncoder<std::io::BufWriter<std::fs::File>>;
type ApngSink = png::Writer<std::io::BufWriter<std::fs::File>>;

enum Sink {
    /// The encoder, the frame rate and the frames written so far (each frame's delay
    /// depends on where it falls: see [`gif_delay_cs`]).
    Gif(Box<GifSink>, f32, u32),
    Apng(ApngSink),
    Mp4(std::process::Child),
}

/// Writes a preview frame by frame as it is rendered, so an export of any length holds
/// one frame in memory at a time (issue 17: a 300-frame export kept every image).
/// Frames must all be `width` x `height`; [`FrameWriter::finish`] completes the file. A
/// writer dropped before that (an error part-way) removes its unfinished file.
pub struct FrameWriter {
    path: std::path::PathBuf,
    width: u32,
    height: u32,
    frames: u32,
    written: u32,
    /// `None` once finished.
    sink: Option<Sink>,
}

impl Drop for FrameWriter {
    fn drop(&mut self) {
        if let Some(sink) = self.sink.take() {
            if let Sink::Mp4(mut child) = sink {
                let _ = child.kill();
                let _ = child.wait();
            } else {
                drop(sink);
            }
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl FrameWriter {
    /// Starts writing `frames` frames of `width` x `height` at `fps` to `path` as
    /// `format` (an animated PNG stores the frame count in its header).
    pub fn create(
        path: &Path,
        format: ExportFormat,
        (width, height): (u32, u32),
        frames: u32,
        fps: f32,
    ) -> Result<Self, ExportError> {
        if frames == 0 {
            return Err(ExportError::NoFrames);
        }
        let sink = match format {
            ExportFormat::Gif => {
                use image::codecs::gif::{GifEncoder, Repeat};
                let file = create(path)?;
                // Speed 10 of 1..=30: NeuQuant palette quality close to the best at a
                // fraction of its time.
                let mut encoder = GifEncoder::new_with_speed(std::io::BufWriter::new(file), 10);
                encoder
                    .set_repeat(Repeat::Infinite)
                    .map_err(|e| ExportError::codec(path, "", e))?;
                if !(fps.is_finite() && fps > 0.0) {
                    return Err(ExportError::FrameRate {
                        path: path.to_path_buf(),
                        fps,
                    });
                }
                Sink::Gif(Box::new(encoder), fps, 0)
            }
            ExportFormat::Apng => {
                let file = create(path)?;
                let err = |e: png::EncodingError| ExportError::codec(path, "cannot write APNG", e);
                let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
                encoder.set_color(png::ColorType::Rgba);
                encoder.set_depth(png::BitDepth::Eight);
                encoder.set_animated(frames, 0).map_err(err)?;
                // The delay is a u16 fraction: hundredths of a frame keep 29.97 fps exact
                // enough.
                let den = (fps * 100.0).round().clamp(1.0, f32::from(u16::MAX)) as u16;
                encoder.set_frame_delay(100, den).map_err(err)?;
                Sink::Apng(encoder.write_header().map_err(err)?)
            }
            // Raw RGBA into ffmpeg, H.264 in yuv420p out (what players accept), odd sizes
            // padded to even ones as that format needs.
            ExportFormat::Mp4 => Sink::Mp4(
                Command::new("ffmpeg")
                    .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo"])
                    .args(["-pix_fmt", "rgba", "-s"])
                    .arg(format!("{width}x{height}"))
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
                        std::io::ErrorKind::NotFound => ExportError::NoFfmpeg,
                        _ => ExportError::FfmpegStart(e.to_string()),
                    })?,
            ),
        };
        Ok(Self {
            path: path.to_path_buf(),
            width,
            height,
            frames,
            written: 0,
            sink: Some(sink),
        })
    }

    /// Frames written so far.
    pub fn written(&self) -> u32 {
        self.written
    }

    /// Appends one frame.
    pub fn push(&mut self, frame: &RgbaImage) -> Result<(), ExportError> {
        let path = self.path.as_path();
        if (frame.width, frame.height) != (self.width, self.height) {
            return Err(ExportError::FrameSize {
                path: path.to_path_buf(),
                frame: self.written,
                size: (frame.width, frame.height),
                export: (self.width, self.height),
            });
        }
        if self.written >= self.frames {
            return Err(ExportError::TooManyFrames {
                path: path.to_path_buf(),
                frames: self.frames,
            });
        }
        let Some(sink) = self.sink.as_mut() else {
            return Err(ExportError::Finished {
                path: path.to_path_buf(),
            });
        };
        match sink {
            Sink::Gif(encoder, fps, index) => {
                let delay = image::Delay::from_numer_denom_ms(10 * gif_delay_cs(*index, *fps), 1);
                *index += 1;
                let buffer =
                    image::RgbaImage::from_raw(frame.width, frame.height, frame.pixels.clone())
                        .ok_or_else(|| ExportError::FrameBuffer {
                            path: path.to_path_buf(),
                        })?;
                encoder
                    .encode_frame(image::Frame::from_parts(buffer, 0, 0, delay))
                    .map_err(|e| ExportError::codec(path, "cannot write GIF frame", e))?;
            }
            Sink::Apng(writer) => writer
                .write_image_data(&frame.pixels)
                .map_err(|e| ExportError::codec(path, "cannot write APNG", e))?,
            Sink::Mp4(child) => {
                // A closed pipe means ffmpeg stopped early; `finish` reports its stderr.
                if let Some(stdin) = child.stdin.as_mut() {
                    if stdin.write_all(&frame.pixels).is_err() {
                        child.stdin = None;
                    }
                }
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Completes the file (every announced frame must have been pushed).
    pub fn finish(mut self) -> Result<(), ExportError> {
        let path = self.path.clone();
        if self.written != self.frames {
            // Dropping `self` removes the unfinished file.
            return Err(ExportError::Unfinished {
                path,
                written: self.written,
                frames: self.frames,
            });
        }
        let Some(sink) = self.sink.take() else {
            return Ok(());
        };
        match sink {
            Sink::Gif(encoder, ..) => {
                drop(encoder);
                Ok(())
            }
            Sink::Apng(writer) => writer
                .finish()
                .map_err(|e| ExportError::codec(&path, "cannot write APNG", e)),
            Sink::Mp4(mut child) => {
                drop(child.stdin.take());
                let out = child
                    .wait_with_output()
                    .map_err(|e| ExportError::FfmpegWait(e.to_string()))?;
                if !out.status.success() {
                    return Err(ExportError::FfmpegFailed {
                        path,
                        status: out.status.to_string(),
                        stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
                    });
                }
                Ok(())
            }
        }
    }
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

fn create(path: &Path) -> Result<std::fs::File, ExportError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| ExportError::io(dir, "cannot create", &e))?;
    }
    std::fs::File::create(path).map_err(|e| ExportError::io(path, "cannot write", &e))
}

/// The delay of GIF frame `index` at `fps`, in the hundredths of a second GIF stores:
/// where the frame ends minus where it starts, each rounded to a hundredth, so the delays
/// add up to the clip's length (a 1.1 s clip at 30 fps is 3 and 4 hundredths in turn, not
/// 33 frames of 3: 0.99 s).
pub fn gif_delay_cs(index: u32, fps: f32) -> u32 {
    let at = |i: u32| (f64::from(i) * 100.0 / f64::from(fps)).round() as u32;
    at(index + 1) - at(index)
}
