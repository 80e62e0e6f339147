//! Reading the values of a `TensorProto`: raw little-endian bytes, typed fields, or external data.

use std::path::Path;

use crate::error::{io_err, OnnxError};
use crate::proto::{data_type, TensorProto};

/// The shape of `t` as `usize`s (negative dimensions are an error).
pub fn shape(t: &TensorProto) -> Result<Vec<usize>, OnnxError> {
    t.dims.iter().map(|&d| usize::try_from(d).map_err(|_| tensor_err(t, format!("negative dimension {d}")))).collect()
}

/// Number of elements of `t` (1 for a scalar).
pub fn numel(t: &TensorProto) -> Result<usize, OnnxError> {
    shape(t)?
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| tensor_err(t, "too many elements".into()))
}

/// The bytes of a tensor stored as raw data, in this message or in an external file (looked up
/// relative to `base_dir`, the directory of the model file). `None` when the values are in a
/// typed field instead.
pub fn raw_bytes<'a>(
    t: &'a TensorProto,
    base_dir: Option<&Path>,
) -> Result<Option<std::borrow::Cow<'a, [u8]>>, OnnxError> {
    if t.data_location == 1 {
        let entry = |k: &str| t.external_data.iter().find(|e| e.key == k).map(|e| e.value.as_str());
        let location = entry("location").ok_or_else(|| tensor_err(t, "external data without `location`".into()))?;
        let parse = |k: &str| -> Result<Option<u64>, OnnxError> {
            entry(k).map(|v| v.parse().map_err(|_| tensor_err(t, format!("bad external `{k}` `{v}`")))).transpose()
        };
        let (offset, length) = (parse("offset")?.unwrap_or(0), parse("length")?);
        if Path::new(location).is_absolute() || location.split(['/', '\\']).any(|c| c == "..") {
            return Err(tensor_err(t, format!("external data location `{location}` leaves the model directory")));
        }
        let dir = base_dir.ok_or_else(|| tensor_err(t, "external data, but no model directory is known".into()))?;
        let path = dir.join(location);
        let data = std::fs::read(&path).map_err(|e| io_err(&path, e))?;
        let start = usize::try_from(offset).map_err(|_| tensor_err(t, "external offset too large".into()))?;
        let end = match length {
            Some(n) => start.checked_add(n as usize),
            None => Some(data.len()),
        };
        let bytes = end.and_then(|end| data.get(start..end)).ok_or_else(|| {
            tensor_err(t, format!("external range outside {} ({} bytes)", path.display(), data.len()))
        })?;
        return Ok(Some(std::borrow::Cow::Owned(bytes.to_vec())));
    }
    if t.raw_data.is_empty() {
        Ok(None)
    } else {
        Ok(Some(std::borrow::Cow::Borrowed(&t.raw_data)))
    }
}

/// The values of a floating-point tensor (FLOAT, FLOAT16 or DOUBLE) as `f32`.
pub fn to_f32(t: &TensorProto, base_dir: Option<&Path>) -> Result<Vec<f32>, OnnxError> {
    let n = numel(t)?;
    let values: Vec<f32> = match (t.data_type, raw_bytes(t, base_dir)?) {
        (data_type::FLOAT, Some(b)) => {
            b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
        }
        (data_type::FLOAT, None) => t.float_data.clone(),
        (data_type::FLOAT16, Some(b)) => {
            b.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32()).collect()
        }
        // FLOAT16 in `int32_data`: the bit pattern in the low 16 bits.
        (data_type::FLOAT16, None) => t.int32_data.iter().map(|&v| half::f16::from_bits(v as u16).to_f32()).collect(),
        (data_type::DOUBLE, Some(b)) => b
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f32)
            .collect(),
        (data_type::DOUBLE, None) => t.double_data.iter().map(|&v| v as f32).collect(),
        (other, _) => return Err(tensor_err(t, format!("data type {other} is not a float type"))),
    };
    check_len(t, values.len(), n)?;
    Ok(values)
}

/// The values of an 8-bit integer tensor (UINT8 or INT8) as `i32`.
pub fn to_i32_from_8bit(t: &TensorProto, base_dir: Option<&Path>) -> Result<Vec<i32>, OnnxError> {
    let n = numel(t)?;
    let values: Vec<i32> = match (t.data_type, raw_bytes(t, base_dir)?) {
        (data_type::UINT8, Some(b)) => b.iter().map(|&v| i32::from(v)).collect(),
        (data_type::INT8, Some(b)) => b.iter().map(|&v| i32::from(v as i8)).collect(),
        (data_type::UINT8 | data_type::INT8, None) => t.int32_data.clone(),
        (other, _) => return Err(tensor_err(t, format!("data type {other} is not UINT8 or INT8"))),
    };
    check_len(t, values.len(), n)?;
    Ok(values)
}

/// The bytes of a UINT8 tensor (packed quantised weights).
pub fn to_u8(t: &TensorProto, base_dir: Option<&Path>) -> Result<Vec<u8>, OnnxError> {
    if t.data_type != data_type::UINT8 {
        return Err(tensor_err(t, format!("data type {} is not UINT8", t.data_type)));
    }
    let n = numel(t)?;
    let values: Vec<u8> = match raw_bytes(t, base_dir)? {
        Some(b) => b.into_owned(),
        None => t.int32_data.iter().map(|&v| v as u8).collect(),
    };
    check_len(t, values.len(), n)?;
    Ok(values)
}

fn check_len(t: &TensorProto, got: usize, want: usize) -> Result<(), OnnxError> {
    if got == want {
        Ok(())
    } else {
        Err(tensor_err(t, format!("holds {got} values, its shape {:?} needs {want}", t.dims)))
    }
}

pub(crate) fn tensor_err(t: &TensorProto, message: String) -> OnnxError {
    OnnxError::Tensor { name: t.name.clone(), message }
}
