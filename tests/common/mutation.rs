//! Seeded mutations of glTF files for the importer's robustness tests
//! (`tests/mutation.rs`) and the longer run (`cargo bench --bench mutation`): byte flips,
//! truncations, GLB length fields set to hostile values, and JSON edits (a number replaced
//! by an extreme or a wrong type, a key removed) re-packed into a valid container.

use serde_json::Value;

/// xorshift64*: deterministic for a seed on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// What a mutation did, for the failure message.
pub struct Mutation {
    pub bytes: Vec<u8>,
    pub what: String,
}

const GLB_MAGIC: &[u8; 4] = b"glTF";
const HOSTILE_U32: [u32; 6] = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_fff0, 0xffff_ffff];

/// The JSON chunk and BIN chunk of a well-formed GLB.
fn split_glb(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let u32_at =
        |o: usize| Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?) as usize);
    let json_len = u32_at(12)?;
    let json = bytes.get(20..20 + json_len)?;
    let bin = match u32_at(20 + json_len) {
        Some(len) => bytes.get(28 + json_len..28 + json_len + len).unwrap_or(&[]),
        None => &[],
    };
    Some((json, bin))
}

fn pack_glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut j = json.to_vec();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(GLB_MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if !b.is_empty() {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
    }
    out
}

fn count_numbers(v: &Value) -> usize {
    match v {
        Value::Number(_) => 1,
        Value::Array(a) => a.iter().map(count_numbers).sum(),
        Value::Object(o) => o.values().map(count_numbers).sum(),
        _ => 0,
    }
}

fn replace_number(v: &mut Value, k: &mut usize, with: &Value) -> bool {
    match v {
        Value::Number(_) => {
            if *k == 0 {
                *v = with.clone();
                return true;
            }
            *k -= 1;
            false
        }
        Value::Array(a) => a.iter_mut().any(|x| replace_number(x, k, with)),
        Value::Object(o) => o.values_mut().any(|x| replace_number(x, k, with)),
        _ => false,
    }
}

fn count_keys(v: &Value) -> usize {
    match v {
        Value::Array(a) => a.iter().map(count_keys).sum(),
        Value::Object(o) => o.len() + o.values().map(count_keys).sum::<usize>(),
        _ => 0,
    }
}

fn remove_key(v: &mut Value, k: &mut usize) -> Option<String> {
    match v {
        Value::Array(a) => a.iter_mut().find_map(|x| remove_key(x, k)),
        Value::Object(o) => {
            if *k < o.len() {
                let key = o.keys().nth(*k)?.clone();
                o.remove(&key);
                return Some(key);
            }
            *k -= o.len();
            o.values_mut().find_map(|x| remove_key(x, k))
        }
        _ => None,
    }
}

/// One mutation of `original` (a .glb or .gltf file's bytes).
pub fn mutate(original: &[u8], rng: &mut Rng) -> Mutation {
    let is_glb = original.starts_with(GLB_MAGIC);
    let kind = rng.below(if is_glb { 5 } else { 4 });
    let mut bytes = original.to_vec();
    let what = match kind {
        0 => {
            let flips = 1 + rng.below(16);
            for _ in 0..flips {
                let at = rng.below(bytes.len());
                bytes[at] ^= (1 + rng.below(255)) as u8;
            }
            format!("{flips} byte flips")
        }
        1 => {
            let len = rng.below(bytes.len());
            bytes.truncate(len);
            format!("truncated to {len} bytes")
        }
        2 | 3 => {
            let (json, bin) = if is_glb {
                match split_glb(original) {
                    Some(parts) => parts,
                    None => {
                        return Mutation {
                            bytes,
                            what: "unchanged".into(),
                        }
                    }
                }
            } else {
                (original, &[][..])
            };
            let Ok(mut doc) = serde_json::from_slice::<Value>(json) else {
                return Mutation {
                    bytes,
                    what: "unchanged".into(),
                };
            };
            let what = if kind == 2 {
                let extremes = [
                    Value::from(-1),
                    Value::from(0),
                    Value::from(1e30),
                    Value::from(4_294_967_295u64),
                    Value::from(2_147_483_648u64),
                    Value::from(-2_147_483_649i64),
                    Value::from("x"),
                    Value::Null,
                    Value::Array(vec![]),
                ];
                let with = &extremes[rng.below(extremes.len())];
                let mut k = rng.below(count_numbers(&doc));
                replace_number(&mut doc, &mut k, with);
                format!("a number set to {with}")
            } else {
                let mut k = rng.below(count_keys(&doc));
                match remove_key(&mut doc, &mut k) {
                    Some(key) => format!("key '{key}' removed"),
                    None => "no key removed".into(),
                }
            };
            let text = serde_json::to_vec(&doc).unwrap();
            bytes = if is_glb { pack_glb(&text, bin) } else { text };
            what
        }
        _ => {
            // GLB length fields: the total, the JSON chunk's or the BIN chunk's.
            let json_len = u32::from_le_bytes(original[12..16].try_into().unwrap()) as usize;
            let fields = [8usize, 12, 20 + json_len];
            let at = fields[rng.below(fields.len())];
            let value = HOSTILE_U32[rng.below(HOSTILE_U32.len())];
            if at + 4 <= bytes.len() {
                bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
            format!("length field at byte {at} set to {value:#x}")
        }
    };
    Mutation { bytes, what }
}
