//! The protobuf wire format: a bounds-checked cursor for reading, and encoders for writing.

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WireType {
    Varint,
    Fixed64,
    Len,
    Fixed32,
}

impl WireType {
    fn code(self) -> u64 {
        match self {
            Self::Varint => 0,
            Self::Fixed64 => 1,
            Self::Len => 2,
            Self::Fixed32 => 5,
        }
    }
}

/// A cursor over one message's bytes. `base` is the message's offset in the file, so errors
/// can name absolute offsets.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pub(super) pos: usize,
    base: usize,
    message: &'static str,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8], message: &'static str, base: usize) -> Self {
        Self {
            bytes,
            pos: 0,
            base,
            message,
        }
    }

    pub(super) fn error(&self, what: String) -> Error {
        Error::ModelFormat(format!(
            "{} at byte offset {}: {what} (the file is truncated or is not a SentencePiece .model)",
            self.message,
            self.base + self.pos
        ))
    }

    pub(super) fn wrong_wire(&self, field: u32, wire: WireType) -> Error {
        self.error(format!("field {field} has the wrong wire type {wire:?}"))
    }

    fn raw_varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in 0..10 {
            let byte = *self.bytes.get(self.pos)?;
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << (7 * shift);
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    pub(super) fn tag(&mut self) -> Result<Option<(u32, WireType)>> {
        if self.pos == self.bytes.len() {
            return Ok(None);
        }
        let start = self.pos;
        let key = self.raw_varint().ok_or_else(|| {
            self.pos = start;
            self.error("a field key is cut off".into())
        })?;
        let field = key >> 3;
        let wire = match key & 7 {
            0 => WireType::Varint,
            1 => WireType::Fixed64,
            2 => WireType::Len,
            5 => WireType::Fixed32,
            other => {
                self.pos = start;
                return Err(self.error(format!("unsupported wire type {other}")));
            }
        };
        if field == 0 || field > u64::from(u32::MAX >> 3) {
            self.pos = start;
            return Err(self.error(format!("invalid field number {field}")));
        }
        Ok(Some((field as u32, wire)))
    }

    pub(super) fn varint(&mut self, field: u32) -> Result<u64> {
        let start = self.pos;
        self.raw_varint().ok_or_else(|| {
            self.pos = start;
            self.error(format!("the varint of field {field} is cut off"))
        })
    }

    pub(super) fn fixed32(&mut self, field: u32) -> Result<u32> {
        let chunk = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error(format!("the 4-byte value of field {field} is cut off")))?;
        self.pos += 4;
        Ok(u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
    }

    /// A length-delimited payload and its absolute offset.
    pub(super) fn bytes(&mut self, field: u32) -> Result<(&'a [u8], usize)> {
        let len = self.varint(field)?;
        let remaining = (self.bytes.len() - self.pos) as u64;
        if len > remaining {
            return Err(self.error(format!(
                "field {field} claims {len} bytes but only {remaining} remain"
            )));
        }
        let start = self.pos;
        self.pos += len as usize;
        Ok((&self.bytes[start..self.pos], self.base + start))
    }

    pub(super) fn string(&mut self, field: u32) -> Result<String> {
        let start = self.pos;
        let (raw, _) = self.bytes(field)?;
        String::from_utf8(raw.to_vec()).map_err(|_| {
            self.pos = start;
            self.error(format!("field {field} is not valid UTF-8"))
        })
    }

    pub(super) fn skip(&mut self, field: u32, wire: WireType) -> Result<()> {
        match wire {
            WireType::Varint => {
                self.varint(field)?;
            }
            WireType::Fixed32 => {
                self.fixed32(field)?;
            }
            WireType::Fixed64 => {
                if self.bytes.len() - self.pos < 8 {
                    return Err(self.error(format!("the 8-byte value of field {field} is cut off")));
                }
                self.pos += 8;
            }
            WireType::Len => {
                self.bytes(field)?;
            }
        }
        Ok(())
    }

    /// The bytes of the field starting at `start` (its key included), up to the cursor.
    pub(super) fn span_from(&self, start: usize) -> &'a [u8] {
        &self.bytes[start..self.pos]
    }
}

/// Splits a message into its fields: `(field number, whole encoding with the key)`.
pub(super) fn split_fields<'a>(
    bytes: &'a [u8],
    message: &'static str,
) -> Result<Vec<(u32, &'a [u8])>> {
    let mut r = Reader::new(bytes, message, 0);
    let mut out = Vec::new();
    loop {
        let start = r.pos;
        let Some((field, wire)) = r.tag()? else {
            return Ok(out);
        };
        r.skip(field, wire)?;
        out.push((field, r.span_from(start)));
    }
}

pub(super) fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

pub(super) fn put_key(field: u32, wire: WireType, out: &mut Vec<u8>) {
    put_varint(u64::from(field) << 3 | wire.code(), out);
}

/// A field of type `int32`, `bool` or enum. Negative `int32` values are sign-extended to 64
/// bits, as protobuf writes them.
pub(super) fn varint_field(field: u32, value: i64) -> Vec<u8> {
    let mut out = Vec::new();
    put_key(field, WireType::Varint, &mut out);
    put_varint(value as u64, &mut out);
    out
}

pub(super) fn len_field(field: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 6);
    put_key(field, WireType::Len, &mut out);
    put_varint(payload.len() as u64, &mut out);
    out.extend_from_slice(payload);
    out
}
