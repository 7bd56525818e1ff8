//! What a caller may tell the importer ([`LoadOptions`]: the units of a BVH file, whether a
//! truncated BVH may load) and what the importer records about the source
//! ([`SourceFormat`]).

use std::fmt;
use std::str::FromStr;

use super::OptionError;

/// Environment variable read by [`super::load`] and [`super::load_scene`] (so by every
/// command and the window): the units of BVH files, as [`Units::parse`] reads them
/// (`cm`, `mm`, `m`, `in`, `ft` or metres per file unit). Unset or empty: detected.
pub const UNITS_ENV: &str = "STRIDESCOPE_UNITS";

/// Environment variable read like [`UNITS_ENV`]: `1` (or `true`, `yes`) loads the complete
/// frames of a BVH file whose motion data stops early, with a warning, instead of refusing it.
pub const ALLOW_TRUNCATED_ENV: &str = "STRIDESCOPE_ALLOW_TRUNCATED";

/// The file format a [`super::Model`] was imported from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SourceFormat {
    /// glTF 2.0 (`.gltf`, `.glb`): metres, +Y up, by the specification.
    Gltf,
    /// Biovision Hierarchy motion capture (`.bvh`): a skeleton and one clip, no meshes.
    Bvh,
    /// Autodesk FBX (`.fbx`, binary or ASCII), read with ufbx and converted to metres, +Y up.
    Fbx,
}

impl SourceFormat {
    /// `"gltf"`, `"bvh"` or `"fbx"` (what `inspect --json` prints).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceFormat::Gltf => "gltf",
            SourceFormat::Bvh => "bvh",
            SourceFormat::Fbx => "fbx",
        }
    }
}

impl fmt::Display for SourceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The length unit of a file whose format does not fix one (BVH).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Units {
    /// 0.001 m per unit.
    Millimetres,
    /// 0.01 m per unit.
    Centimetres,
    /// 1 m per unit.
    Metres,
    /// 0.0254 m per unit.
    Inches,
    /// 0.3048 m per unit.
    Feet,
    /// Any other unit: metres per file unit (finite, above 0).
    MetresPerUnit(f64),
}

impl Units {
    /// The named units unit detection chooses among, smallest first.
    pub const NAMED: [Units; 5] = [
        Units::Millimetres,
        Units::Centimetres,
        Units::Inches,
        Units::Feet,
        Units::Metres,
    ];

    /// Metres per file unit.
    pub fn metres_per_unit(self) -> f64 {
        match self {
            Units::Millimetres => 0.001,
            Units::Centimetres => 0.01,
            Units::Metres => 1.0,
            Units::Inches => 0.0254,
            Units::Feet => 0.3048,
            Units::MetresPerUnit(m) => m,
        }
    }

    /// In words: `centimetres`, `inches`, or `0.05 m per unit`.
    pub fn describe(self) -> String {
        match self {
            Units::Millimetres => "millimetres".into(),
            Units::Centimetres => "centimetres".into(),
            Units::Metres => "metres".into(),
            Units::Inches => "inches".into(),
            Units::Feet => "feet".into(),
            Units::MetresPerUnit(m) => format!("{m} m per unit"),
        }
    }

    /// The short form [`Units::parse`] reads back: `cm`, `mm`, `m`, `in`, `ft`, or the
    /// number of metres per unit.
    pub fn short_name(self) -> String {
        match self {
            Units::Millimetres => "mm".into(),
            Units::Centimetres => "cm".into(),
            Units::Metres => "m".into(),
            Units::Inches => "in".into(),
            Units::Feet => "ft".into(),
            Units::MetresPerUnit(m) => format!("{m}"),
        }
    }

    /// Reads `cm`, `mm`, `m`, `in`, `ft` (and their long names: `centimetres`,
    /// `centimeters`, `inch`, `feet`...) or a number of metres per file unit (`0.01`).
    pub fn parse(text: &str) -> Result<Units, OptionError> {
        let t = text.trim().to_ascii_lowercase();
        let named = match t.as_str() {
            "mm" | "millimetre" | "millimetres" | "millimeter" | "millimeters" => {
                Some(Units::Millimetres)
            }
            "cm" | "centimetre" | "centimetres" | "centimeter" | "centimeters" => {
                Some(Units::Centimetres)
            }
            "m" | "metre" | "metres" | "meter" | "meters" => Some(Units::Metres),
            "in" | "inch" | "inches" => Some(Units::Inches),
            "ft" | "foot" | "feet" => Some(Units::Feet),
            _ => None,
        };
        if let Some(u) = named {
            return Ok(u);
        }
        match t.parse::<f64>() {
            Ok(m) if m.is_finite() && m > 0.0 && m <= 1e6 => Ok(Units::MetresPerUnit(m)),
            _ => Err(OptionError::NotAUnit {
                text: text.trim().to_string(),
            }),
        }
    }
}

impl FromStr for Units {
    type Err = OptionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Units::parse(s)
    }
}

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// How to import a file. The default detects everything and refuses truncated files.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadOptions {
    /// Units of a BVH file; `None` detects them from the skeleton's height. glTF files are
    /// in metres by their specification and ignore it (with a warning).
    pub units: Option<Units>,
    /// A BVH file with fewer motion values than `Frames:` times its channels loads its
    /// complete frames, with a warning, instead of failing.
    pub allow_truncated: bool,
    /// Keep the file's own units and axes instead of converting to metres and +Y up (FBX;
    /// what `snapshot --source-space` writes). The model's lengths are then in file units.
    pub source_space: bool,
    /// Key reduction after import (`--reduce-keys`): channels within this many metres of
    /// constant become constant ([`super::Model::reduce_keys`]); `None`: full precision.
    pub reduce_keys_m: Option<f32>,
}

impl LoadOptions {
    /// The options [`UNITS_ENV`], [`ALLOW_TRUNCATED_ENV`] and
    /// [`super::REDUCE_KEYS_ENV`] set (the defaults when unset); `Err` names a bad value.
    /// The window and the commands read them once, at start-up, under their flags; the
    /// library's plain [`super::load`] reads them on every call, for tools that cannot pass
    /// options (the shared ozz-animation harness).
    pub fn from_env() -> Result<LoadOptions, OptionError> {
        let units = match std::env::var(UNITS_ENV) {
            Ok(v) if !v.trim().is_empty() => {
                Some(Units::parse(&v).map_err(|e| e.in_env(UNITS_ENV))?)
            }
            _ => None,
        };
        let allow_truncated = match std::env::var(ALLOW_TRUNCATED_ENV) {
            Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
                "" | "0" | "false" | "no" | "off" => false,
                "1" | "true" | "yes" | "on" => true,
                other => {
                    return Err(OptionError::NotAFlag {
                        text: other.to_string(),
                    }
                    .in_env(ALLOW_TRUNCATED_ENV))
                }
            },
            Err(_) => false,
        };
        Ok(LoadOptions {
            units,
            allow_truncated,
            source_space: false,
            reduce_keys_m: super::reduce_keys_from_env()?,
        })
    }
}
