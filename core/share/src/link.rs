//! Share links. The current format is `#v2/<payload>`: the payload is the JSON
//! [`ViewState`] compressed with zlib and written in unpadded URL-safe base64. zlib
//! ends with an Adler-32 checksum of the JSON, so a link damaged in transit (a
//! character changed, dropped or cut off) fails to open with the "damaged link"
//! message instead of opening altered code. Links of the first format, `#v1/` +
//! lz-string's `compressToEncodedURIComponent` (the TypeScript playground's scheme),
//! carry no checksum and still open.
//!
//! Links come from strangers, so decoding is defensive: every failure is a
//! [`LinkError`] with a message for the banner, never a panic, and the work done is
//! bounded before and during decompression (zlib expands at most ~1,000-fold and is
//! inflated with a limit; lz-string can grow quadratically, so v1 payloads are capped).

use crate::ViewState;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::fmt;

/// The version links are made in.
pub const PREFIX: &str = "v2/";
/// Longest link payload Share makes (characters after `#v2/`). Browsers accept
/// fragments of megabytes, but chat and mail clients cut long links; past this a
/// program is shared as a file instead. Compression makes it about 300–600 KB of
/// MATLAB.
pub const MAX_LINK_CHARS: usize = 128 * 1024;
/// Longest v2 payload we open (twice what we make: links from later versions).
pub const MAX_ENCODED_CHARS: usize = 2 * MAX_LINK_CHARS;
/// Longest v1 (lz-string) payload we decompress: lz-string output can grow with the
/// square of its input, so this caps the worst case (~tens of MB).
pub const MAX_V1_ENCODED_CHARS: usize = 24 * 1024;
/// Largest decompressed JSON we accept, in bytes (v2) or UTF-16 units (v1).
pub const MAX_DECODED: usize = 8 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The fragment is not of the form `v<N>/…`.
    BadPrefix,
    /// `v<N>/` with a version this build does not know.
    UnknownVersion(String),
    /// The payload is longer than this build opens, or decompresses past
    /// [`MAX_DECODED`]; carries the payload's length in characters.
    TooLarge(usize),
    /// Not valid compressed data, its checksum does not match, or not valid text.
    Damaged,
    /// Decompressed fine but is not the JSON state we expect.
    BadJson(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::BadPrefix => write!(
                f,
                "This link is not a Shape Explorer share link (expected #v2/… or #v1/…)."
            ),
            LinkError::UnknownVersion(v) => write!(
                f,
                "This link uses format {v}, which this version of Shape Explorer cannot read."
            ),
            LinkError::TooLarge(chars) => write!(
                f,
                "This link is too large to open ({} KB of link data; links up to {} KB open).",
                chars.div_ceil(1024),
                MAX_ENCODED_CHARS / 1024
            ),
            LinkError::Damaged => write!(
                f,
                "This link is damaged: it was changed or cut short on its way here (its checksum does not match), so it is not opened."
            ),
            LinkError::BadJson(e) => write!(
                f,
                "This link is damaged: its data is not a valid program state ({e})."
            ),
        }
    }
}

/// The fragment (without `#`) that restores `state`, however long; see [`link`].
pub fn encode(state: &ViewState) -> String {
    encode_json(&serde_json::to_string(state).expect("ViewState always serialises"))
}

/// The v2 fragment of a state's JSON as it is (an older link's, in tests).
pub fn encode_json(json: &str) -> String {
    let zlib = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 9);
    format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(zlib))
}

/// The fragment for `state` if it is short enough to share as a link
/// ([`MAX_LINK_CHARS`]); otherwise the payload's length, and the program should be
/// shared as a file.
pub fn link(state: &ViewState) -> Result<String, usize> {
    let fragment = encode(state);
    let payload = fragment.len() - PREFIX.len();
    if payload > MAX_LINK_CHARS {
        Err(payload)
    } else {
        Ok(fragment)
    }
}

/// Reads a fragment, with or without the leading `#`.
pub fn decode(fragment: &str) -> Result<ViewState, LinkError> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let (version, payload) = fragment.split_once('/').ok_or(LinkError::BadPrefix)?;
    let json = match version {
        "v2" => decode_v2(payload)?,
        "v1" => decode_v1(payload)?,
        _ => {
            let looks_versioned = version.len() > 1
                && version.starts_with('v')
                && version[1..].chars().all(|c| c.is_ascii_digit());
            return Err(if looks_versioned {
                LinkError::UnknownVersion(version.to_string())
            } else {
                LinkError::BadPrefix
            });
        }
    };
    serde_json::from_str(&json).map_err(|e| LinkError::BadJson(e.to_string()))
}

fn decode_v2(payload: &str) -> Result<String, LinkError> {
    if payload.len() > MAX_ENCODED_CHARS {
        return Err(LinkError::TooLarge(payload.len()));
    }
    let zlib = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| LinkError::Damaged)?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&zlib, MAX_DECODED)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => LinkError::TooLarge(payload.len()),
            _ => LinkError::Damaged,
        })?;
    String::from_utf8(bytes).map_err(|_| LinkError::Damaged)
}

fn decode_v1(payload: &str) -> Result<String, LinkError> {
    if payload.len() > MAX_V1_ENCODED_CHARS {
        return Err(LinkError::TooLarge(payload.len()));
    }
    let units = lz_str::decompress_from_encoded_uri_component(payload).ok_or(LinkError::Damaged)?;
    if units.len() > MAX_DECODED {
        return Err(LinkError::TooLarge(payload.len()));
    }
    String::from_utf16(&units).map_err(|_| LinkError::Damaged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Notation;

    fn sample() -> ViewState {
        ViewState {
            code: "a = rand(3,2); % ü — 'quote' \"dq\" <b>\n\tc = a*b;\n".into(),
            lang: "matlab".into(),
            settings: [("mode".to_string(), "paper".to_string())].into(),
            view: "checks".into(),
            notation: Notation::Times,
            step: Some(3),
            ..ViewState::default()
        }
    }

    #[test]
    fn round_trip_restores_every_field() {
        let s = sample();
        let link = encode(&s);
        assert!(link.starts_with("v2/"));
        assert_eq!(decode(&link), Ok(s.clone()));
        assert_eq!(decode(&format!("#{link}")), Ok(s));
    }

    #[test]
    fn a_link_keeps_settings_no_option_box_shows() {
        // The lattice's expanded nodes are a setting without a control.
        let mut s = sample();
        s.settings.insert("expand".into(), "m1,m3d".into());
        assert_eq!(decode(&encode(&s)), Ok(s));
    }

    #[test]
    fn v1_links_still_open() {
        let s = sample();
        let json = serde_json::to_string(&s).unwrap();
        let v1 = format!(
            "v1/{}",
            lz_str::compress_to_encoded_uri_component(json.as_str())
        );
        assert_eq!(decode(&v1), Ok(s));
    }

    #[test]
    fn payload_is_url_safe() {
        let link = encode(&sample());
        let payload = &link[PREFIX.len()..];
        assert!(payload
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c)));
    }

    /// A realistic large program: 2,000 lines, about 77 KB, of varied MATLAB.
    fn large_program() -> String {
        (0..2000)
            .map(|i| match i % 5 {
                0 => format!("function r{i} = step{i}(a, b)  % helper number {i}"),
                1 => format!(
                    "  x{i} = zeros({}, {}) + a(:, {});",
                    i % 17 + 1,
                    i % 13 + 2,
                    i % 7 + 1
                ),
                2 => format!("  y{i} = x{} * b'; % transpose of b, line {i}", i - 1),
                3 => format!("  r{} = sum(y{}(:)) / numel(y{});", i - 3, i - 1, i - 1),
                _ => "end".to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_two_thousand_line_program_fits_a_link() {
        let s = ViewState {
            code: large_program(),
            ..sample()
        };
        assert!(s.code.len() > 70_000, "{}", s.code.len());
        let fragment = link(&s).expect("a 77 KB program must fit a link");
        eprintln!(
            "share: {} lines, {} bytes -> {} link characters",
            s.code.lines().count(),
            s.code.len(),
            fragment.len() - PREFIX.len()
        );
        assert_eq!(decode(&fragment), Ok(s));
    }

    #[test]
    fn too_large_for_a_link_says_how_large() {
        // Incompressible text: every line different.
        let mut x: u64 = 1;
        let code: String = (0..60_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!("v{} = {};\n", x >> 40, x % 1_000_003)
            })
            .collect();
        let s = ViewState { code, ..sample() };
        let chars = link(&s).expect_err("over the link limit");
        assert!(chars > MAX_LINK_CHARS);
        // Larger than we make, but still within what we open.
        let fragment = encode(&s);
        if fragment.len() - PREFIX.len() <= MAX_ENCODED_CHARS {
            assert_eq!(decode(&fragment), Ok(s));
        }
    }

    #[test]
    fn a_changed_character_is_detected_never_silently_opened() {
        let s = ViewState {
            code: "a = zeros(3, 4);\nb = ones(4, 2);\nc = a * b;\n".into(),
            ..sample()
        };
        let link = encode(&s);
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for at in PREFIX.len()..link.len() {
            for c in alphabet.chars() {
                let mut damaged = link.clone();
                damaged.replace_range(at..at + 1, &c.to_string());
                match decode(&damaged) {
                    Err(_) => {}
                    // Only the unused low bits of the last character may change.
                    Ok(opened) => assert_eq!(opened, s, "{damaged} opened altered"),
                }
            }
        }
        for cut in PREFIX.len()..link.len() {
            assert!(decode(&link[..cut]).is_err(), "cut at {cut} opened");
        }
    }

    #[test]
    fn damaged_links_are_errors_not_panics() {
        assert_eq!(decode(""), Err(LinkError::BadPrefix));
        assert_eq!(decode("#hello"), Err(LinkError::BadPrefix));
        assert_eq!(decode("#x1/abc"), Err(LinkError::BadPrefix));
        assert_eq!(
            decode("#v9/abc"),
            Err(LinkError::UnknownVersion("v9".into()))
        );
        for bad in [
            "#v1/!!!not*base64***",
            "#v2/!!!not*base64***",
            "#v2/",
            "#v2/AAAA",
        ] {
            assert!(
                matches!(decode(bad), Err(LinkError::Damaged | LinkError::BadJson(_))),
                "{bad}"
            );
        }
        let not_json = lz_str::compress_to_encoded_uri_component("not json");
        assert!(matches!(
            decode(&format!("v1/{not_json}")),
            Err(LinkError::BadJson(_))
        ));
        let wrong_type =
            miniz_oxide::deflate::compress_to_vec_zlib(b"{\"notation\":\"quantum\",\"code\":5}", 6);
        assert!(matches!(
            decode(&format!("v2/{}", URL_SAFE_NO_PAD.encode(wrong_type))),
            Err(LinkError::BadJson(_))
        ));
    }

    #[test]
    fn huge_payloads_are_refused() {
        // Highly repetitive text compresses to a short link that expands past the limit.
        let code = "a".repeat(MAX_DECODED + 10);
        let json = format!("{{\"code\":\"{code}\"}}");
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 9);
        let payload = URL_SAFE_NO_PAD.encode(zlib);
        assert!(payload.len() < MAX_ENCODED_CHARS, "test needs a short link");
        assert!(matches!(
            decode(&format!("v2/{payload}")),
            Err(LinkError::TooLarge(_))
        ));
        let long = "A".repeat(MAX_ENCODED_CHARS + 1);
        assert!(matches!(
            decode(&format!("v2/{long}")),
            Err(LinkError::TooLarge(_))
        ));
        let v1 = "A".repeat(MAX_V1_ENCODED_CHARS + 1);
        assert!(matches!(
            decode(&format!("v1/{v1}")),
            Err(LinkError::TooLarge(_))
        ));
    }
}
