//! Accessors: dense data, zero fill and sparse substitution, bounds-checked against their
//! buffer views before any allocation; the formats each role accepts.

use super::*;

/// Accessor contents, tightly packed little-endian components.
pub(super) struct AccessorData {
    pub(super) data_type: DataType,
    pub(super) normalized: bool,
    pub(super) bytes: Vec<u8>,
}

impl AccessorData {
    pub(super) fn component_count(&self) -> usize {
        self.bytes.len() / self.data_type.size()
    }

    /// Components as f32; normalised integers are mapped to [0, 1] / [-1, 1] (glTF rules).
    pub(super) fn to_f32(&self) -> Vec<f32> {
        let b = &self.bytes;
        let n = self.normalized;
        match self.data_type {
            DataType::F32 => b
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            DataType::I8 => b
                .iter()
                .map(|&c| {
                    let v = c as i8 as f32;
                    if n {
                        (v / 127.0).max(-1.0)
                    } else {
                        v
                    }
                })
                .collect(),
            DataType::U8 => b
                .iter()
                .map(|&c| if n { c as f32 / 255.0 } else { c as f32 })
                .collect(),
            DataType::I16 => b
                .chunks_exact(2)
                .map(|c| {
                    let v = i16::from_le_bytes([c[0], c[1]]) as f32;
                    if n {
                        (v / 32767.0).max(-1.0)
                    } else {
                        v
                    }
                })
                .collect(),
            DataType::U16 => b
                .chunks_exact(2)
                .map(|c| {
                    let v = u16::from_le_bytes([c[0], c[1]]) as f32;
                    if n {
                        v / 65535.0
                    } else {
                        v
                    }
                })
                .collect(),
            DataType::U32 => b
                .chunks_exact(4)
                .map(|c| {
                    let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64;
                    if n {
                        (v / u32::MAX as f64) as f32
                    } else {
                        v as f32
                    }
                })
                .collect(),
        }
    }

    /// Unsigned integer components (the caller has checked the type is U8/U16/U32).
    pub(super) fn to_u32(&self) -> Vec<u32> {
        let b = &self.bytes;
        match self.data_type {
            DataType::U8 => b.iter().map(|&c| c as u32).collect(),
            DataType::U16 => b
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
                .collect(),
            DataType::U32 => b
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            _ => Vec::new(),
        }
    }
}

pub(super) fn type_name(t: DataType) -> &'static str {
    match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

pub(super) fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

pub(super) fn format_name(acc: &gltf::Accessor<'_>) -> String {
    format!(
        "{} {}{}",
        dims_name(acc.dimensions()),
        type_name(acc.data_type()),
        if acc.normalized() { " normalized" } else { "" }
    )
}

/// Allowed component types for an accessor role: (type, normalized).
pub(super) type Formats<'f> = &'f [(DataType, bool)];

pub(super) const FLOAT_ONLY: Formats<'static> = &[(DataType::F32, false)];

/// Rotation and morph-weight sampler outputs: float, or normalized 8/16-bit integers
/// (glTF core).
pub(super) const ANIMATION_OUTPUT_FORMATS: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::I8, true),
    (DataType::U8, true),
    (DataType::I16, true),
    (DataType::U16, true),
];

/// KHR_mesh_quantization's POSITION: float, or 8/16-bit integers, normalized or not.
pub(super) const QUANTIZED_POSITION: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::I8, false),
    (DataType::I8, true),
    (DataType::U8, false),
    (DataType::U8, true),
    (DataType::I16, false),
    (DataType::I16, true),
    (DataType::U16, false),
    (DataType::U16, true),
];

/// KHR_mesh_quantization's NORMAL and TANGENT: float or normalized signed 8/16-bit.
pub(super) const QUANTIZED_DIRECTION: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::I8, true),
    (DataType::I16, true),
];

/// Core glTF's TEXCOORD formats.
pub(super) const CORE_TEXCOORD: Formats<'static> = &[
    (DataType::F32, false),
    (DataType::U8, true),
    (DataType::U16, true),
];

/// KHR_mesh_quantization's TEXCOORD: any 8/16-bit integer, normalized or not.
pub(super) const QUANTIZED_TEXCOORD: Formats<'static> = QUANTIZED_POSITION;
/// Vertex indices: unsigned 8/16/32-bit.
pub(super) const INDEX_FORMATS: Formats<'static> = &[
    (DataType::U8, false),
    (DataType::U16, false),
    (DataType::U32, false),
];
/// JOINTS_n: unsigned 8/16-bit.
pub(super) const JOINT_FORMATS: Formats<'static> = &[(DataType::U8, false), (DataType::U16, false)];

impl Importer<'_> {
    /// Reads an accessor (dense data, zero fill and sparse substitution), bounds-checked.
    pub(super) fn read_accessor(
        &self,
        acc: &gltf::Accessor<'_>,
    ) -> Result<AccessorData, ImportProblem> {
        let data_type = acc.data_type();
        let comp_size = data_type.size();
        let dims = acc.dimensions();
        if matches!(dims, Dimensions::Mat2 | Dimensions::Mat3 | Dimensions::Mat4) && comp_size < 4 {
            return Err("matrices with 8- or 16-bit components are not supported".into());
        }
        let elem = comp_size * dims.multiplicity();
        let count = acc.count();
        let total = count
            .checked_mul(elem)
            .ok_or_else(|| format!("count {count} is too large"))?;
        let mut bytes = match acc.view() {
            Some(view) => {
                let data = self.view_bytes(&view)?;
                let stride = view.stride().unwrap_or(elem);
                if stride < elem {
                    return Err(format!(
                        "buffer view {} has byte stride {stride}, smaller than one element \
                         ({elem} bytes)",
                        view.index()
                    )
                    .into());
                }
                let offset = acc.offset();
                let end = match count {
                    0 => Some(offset),
                    _ => (count - 1)
                        .checked_mul(stride)
                        .and_then(|x| x.checked_add(offset))
                        .and_then(|x| x.checked_add(elem)),
                };
                let fits = end.is_some_and(|end| end <= data.len());
                if !fits {
                    return Err(format!(
                        "{count} elements of {elem} bytes at offset {offset} (stride {stride}) \
                         do not fit in buffer view {} ({} bytes)",
                        view.index(),
                        data.len()
                    )
                    .into());
                }
                if stride == elem {
                    data[offset..offset + total].to_vec()
                } else {
                    let mut out = Vec::with_capacity(total);
                    for i in 0..count {
                        let s = offset + i * stride;
                        out.extend_from_slice(&data[s..s + elem]);
                    }
                    out
                }
            }
            None => {
                if total > MAX_ZERO_FILLED_BYTES {
                    return Err(format!(
                        "has no buffer view and declares {count} elements ({total} bytes of \
                         zeros), more than this importer accepts"
                    )
                    .into());
                }
                vec![0; total]
            }
        };
        if let Some(sparse) = acc.sparse() {
            self.apply_sparse(&sparse, count, elem, &mut bytes)?;
        }
        Ok(AccessorData {
            data_type,
            normalized: acc.normalized(),
            bytes,
        })
    }

    pub(super) fn apply_sparse(
        &self,
        sparse: &gltf::accessor::sparse::Sparse<'_>,
        count: usize,
        elem: usize,
        bytes: &mut [u8],
    ) -> Result<(), ImportProblem> {
        let n = sparse.count();
        if n > count {
            return Err(format!(
                "sparse substitution count {n} exceeds the accessor count {count}"
            )
            .into());
        }
        let indices = sparse.indices();
        let index_size = indices.index_type().size();
        let index_data = self.view_bytes(&indices.view())?;
        let index_bytes = n
            .checked_mul(index_size)
            .and_then(|len| indices.offset().checked_add(len))
            .and_then(|end| index_data.get(indices.offset()..end))
            .ok_or("sparse indices do not fit in their buffer view")?;
        let values = sparse.values();
        let value_data = self.view_bytes(&values.view())?;
        let value_bytes = n
            .checked_mul(elem)
            .and_then(|len| values.offset().checked_add(len))
            .and_then(|end| value_data.get(values.offset()..end))
            .ok_or("sparse values do not fit in their buffer view")?;
        let mut previous: Option<usize> = None;
        for k in 0..n {
            let raw = &index_bytes[k * index_size..(k + 1) * index_size];
            let i = match index_size {
                1 => raw[0] as usize,
                2 => u16::from_le_bytes([raw[0], raw[1]]) as usize,
                _ => u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) as usize,
            };
            if i >= count {
                return Err(format!(
                    "sparse index {k} is {i}, outside the accessor's {count} elements"
                )
                .into());
            }
            if previous.is_some_and(|p| p >= i) {
                return Err(
                    format!("sparse indices are not strictly increasing at index {k}").into(),
                );
            }
            previous = Some(i);
            bytes[i * elem..(i + 1) * elem].copy_from_slice(&value_bytes[k * elem..(k + 1) * elem]);
        }
        Ok(())
    }

    /// Reads float data after checking the accessor's shape and component type.
    pub(super) fn read_f32s(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        dims: Dimensions,
        formats: Formats<'_>,
    ) -> Result<Vec<f32>, ImportError> {
        let data = self.read_checked(acc, element, role, dims, formats)?;
        debug_assert_eq!(data.component_count(), acc.count() * dims.multiplicity());
        Ok(data.to_f32())
    }

    /// Reads unsigned integer data (indices, joint indices) after the same checks.
    pub(super) fn read_u32s(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        dims: Dimensions,
        formats: Formats<'_>,
    ) -> Result<Vec<u32>, ImportError> {
        Ok(self
            .read_checked(acc, element, role, dims, formats)?
            .to_u32())
    }

    /// The one path every typed read goes through: the format check, then the
    /// bounds-checked read, with both kinds of error worded the same way.
    fn read_checked(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        dims: Dimensions,
        formats: Formats<'_>,
    ) -> Result<AccessorData, ImportError> {
        self.check_format(acc, element, role, dims, formats)?;
        self.read_accessor(acc)
            .map_err(|e| self.err(element, format!("{role} (accessor {}): {e}", acc.index())))
    }

    /// Checks an accessor's shape and component type against what a role allows.
    pub(super) fn check_format(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        dims: Dimensions,
        formats: Formats<'_>,
    ) -> Result<(), ImportError> {
        let normalized_ok = formats
            .iter()
            .any(|&(t, n)| t == acc.data_type() && (n == acc.normalized() || t == DataType::F32));
        if acc.dimensions() != dims || !normalized_ok {
            let allowed: Vec<String> = formats
                .iter()
                .map(|&(t, n)| {
                    format!(
                        "{} {}{}",
                        dims_name(dims),
                        type_name(t),
                        if n { " normalized" } else { "" }
                    )
                })
                .collect();
            return Err(self.err(
                element,
                format!(
                    "{role} (accessor {}) is {}; expected {}",
                    acc.index(),
                    format_name(acc),
                    allowed.join(" or ")
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn read_vec3s_as(
        &self,
        acc: &gltf::Accessor<'_>,
        element: &str,
        role: &str,
        formats: Formats<'_>,
    ) -> Result<Vec<Vec3>, ImportError> {
        let v = self.read_f32s(acc, element, role, Dimensions::Vec3, formats)?;
        Ok(v.chunks_exact(3).map(Vec3::from_slice).collect())
    }

    /// NORMAL / TANGENT formats: float, or with KHR_mesh_quantization normalized 8/16-bit.
    pub(super) fn direction_formats(&self) -> Formats<'static> {
        if self.quantized {
            QUANTIZED_DIRECTION
        } else {
            FLOAT_ONLY
        }
    }
}
