//! Share links: the fragment `#v1/<payload>`, where the payload is lz-string's
//! `compressToEncodedURIComponent` of the JSON [`ViewState`] — the same scheme the
//! TypeScript playground uses, versioned so the format can change later.
//!
//! Links come from strangers, so decoding is defensive: every failure is a
//! [`LinkError`] with a message for the banner, never a panic, and the work done is
//! bounded before decompression (lz-string output can grow quadratically in its input).

use crate::state::ViewState;
use std::fmt;

/// The current link version.
pub const PREFIX: &str = "v1/";
/// Longest payload we decompress. A lz-string code can expand to a string as long as
/// the dictionary, so this caps the worst case (~tens of MB) while allowing programs
/// of several thousand lines.
pub const MAX_ENCODED_CHARS: usize = 24 * 1024;
/// Largest decompressed JSON we accept (UTF-16 code units).
pub const MAX_DECODED_UNITS: usize = 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The fragment is not of the form `v<N>/…`.
    BadPrefix,
    /// `v<N>/` with a version this build does not know.
    UnknownVersion(String),
    /// The payload is longer than [`MAX_ENCODED_CHARS`] or decompresses past
    /// [`MAX_DECODED_UNITS`].
    TooLarge,
    /// Not valid lz-string data, or not valid UTF-16 after decompression.
    BadEncoding,
    /// Decompressed fine but is not the JSON state we expect.
    BadJson(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::BadPrefix => write!(
                f,
                "This link is not a Shape Explorer share link (expected #v1/…)."
            ),
            LinkError::UnknownVersion(v) => write!(
                f,
                "This link uses format {v}, which this version of Shape Explorer cannot read."
            ),
            LinkError::TooLarge => {
                write!(f, "This link's program is too large to open (over 1 MB).")
            }
            LinkError::BadEncoding => {
                write!(f, "This link is damaged: its data cannot be decompressed.")
            }
            LinkError::BadJson(e) => write!(
                f,
                "This link is damaged: its data is not a valid program state ({e})."
            ),
        }
    }
}

/// The fragment (without `#`) that restores `state`.
pub fn encode(state: &ViewState) -> String {
    let json = serde_json::to_string(state).expect("ViewState always serialises");
    format!(
        "{PREFIX}{}",
        lz_str::compress_to_encoded_uri_component(json.as_str())
    )
}

/// Reads a fragment, with or without the leading `#`.
pub fn decode(fragment: &str) -> Result<ViewState, LinkError> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let (version, payload) = fragment.split_once('/').ok_or(LinkError::BadPrefix)?;
    if version != "v1" {
        let looks_versioned = version.len() > 1
            && version.starts_with('v')
            && version[1..].chars().all(|c| c.is_ascii_digit());
        return Err(if looks_versioned {
            LinkError::UnknownVersion(version.to_string())
        } else {
            LinkError::BadPrefix
        });
    }
    if payload.len() > MAX_ENCODED_CHARS {
        return Err(LinkError::TooLarge);
    }
    let units =
        lz_str::decompress_from_encoded_uri_component(payload).ok_or(LinkError::BadEncoding)?;
    if units.len() > MAX_DECODED_UNITS {
        return Err(LinkError::TooLarge);
    }
    let json = String::from_utf16(&units).map_err(|_| LinkError::BadEncoding)?;
    serde_json::from_str(&json).map_err(|e| LinkError::BadJson(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Notation;

    fn sample() -> ViewState {
        ViewState {
            code: "a = rand(3,2); % ü — 'quote' \"dq\" <b>\n\tc = a*b;\n".into(),
            lang: "matlab".into(),
            settings: [("mode".to_string(), "paper".to_string())].into(),
            view: "checks".into(),
            notation: Notation::Times,
        }
    }

    #[test]
    fn opens_links_made_before_languages_were_plug_ins() {
        // Made by the app at commit 2a61870 (share::encode of a ViewState with
        // lang matlab, mode paper, view checks, notation times): MATLAB's mode was a
        // top-level field and views were an enum.
        let old = "v1/N4Igxg9gJgpiBcICGACAvCgTkgdlAFAMwA0ATAJQDcAOjgEbooQ4wDORxhVtYjSAVHUooRAUhQAf2iGIgANrgDmCEAFskAFwV0Za6HEQAHJIZiZdANwCWMAO4qwACxhgA1q104IGzVeYqNK1U2EABfIA";
        let s = decode(old).unwrap();
        assert_eq!(s.code, "a = rand(3,2);\nb = ones(3,3);\nc = a*b;   % ü\n");
        assert_eq!(s.lang, "matlab");
        assert_eq!(s.settings.get("mode").map(String::as_str), Some("paper"));
        assert_eq!(s.view, "checks");
        assert_eq!(s.notation, Notation::Times);
        // And it analyses as it did then: paper mode, where a*b is an inner-dimension error.
        let options = shapex::Options {
            lang: s.lang.clone(),
            settings: s.settings.clone(),
        };
        let report = shapex::analyze(&s.code, &options);
        assert_eq!(report.setting("mode"), Some("paper"));
        assert!(report
            .diagnostics
            .iter()
            .any(|d| d.code.starts_with("shape.mtimes")));
    }

    #[test]
    fn round_trip_restores_every_field() {
        let s = sample();
        let link = encode(&s);
        assert!(link.starts_with("v1/"));
        assert_eq!(decode(&link), Ok(s.clone()));
        assert_eq!(decode(&format!("#{link}")), Ok(s));
    }

    #[test]
    fn payload_is_url_safe() {
        let link = encode(&sample());
        let payload = &link[3..];
        assert!(payload
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-$".contains(c)));
    }

    #[test]
    fn reads_links_made_by_javascript_lz_string() {
        // Produced by the JavaScript reference (npm lz-string 1.5.0):
        // compressToEncodedURIComponent(JSON.stringify({code: "x = 1;\nc = a*b; % ü", mode: "paper"}))
        let js = "N4Igxg9gJgpiBcIAeACAvCgjAbgDoDsx0UBDAKgCNsUBSFAH5ABoQBbaORABxK5gCcQAXyA";
        let s = decode(&format!("v1/{js}")).unwrap();
        assert_eq!(s.code, "x = 1;\nc = a*b; % ü");
        assert_eq!(s.settings.get("mode").map(String::as_str), Some("paper"));
        assert_eq!(s.view, "shapes", "missing fields take defaults");
        assert_eq!(s.lang, "matlab");
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
        assert!(matches!(
            decode("#v1/!!!not*base64***"),
            Err(LinkError::BadEncoding | LinkError::BadJson(_))
        ));
        let not_json = lz_str::compress_to_encoded_uri_component("not json");
        assert!(matches!(
            decode(&format!("v1/{not_json}")),
            Err(LinkError::BadJson(_))
        ));
        let wrong_type =
            lz_str::compress_to_encoded_uri_component("{\"notation\":\"quantum\",\"code\":5}");
        assert!(matches!(
            decode(&format!("v1/{wrong_type}")),
            Err(LinkError::BadJson(_))
        ));
        // A valid link cut short must not panic either.
        let link = encode(&sample());
        for cut in 3..link.len() {
            let _ = decode(&link[..cut]);
        }
    }

    #[test]
    fn huge_payloads_are_refused() {
        // Highly repetitive text compresses to a short link that expands past 1 MB.
        let code = "a".repeat(MAX_DECODED_UNITS + 10);
        let json = format!("{{\"code\":\"{code}\"}}");
        let payload = lz_str::compress_to_encoded_uri_component(json.as_str());
        assert!(payload.len() < MAX_ENCODED_CHARS, "test needs a short link");
        assert_eq!(decode(&format!("v1/{payload}")), Err(LinkError::TooLarge));
        let long = "A".repeat(MAX_ENCODED_CHARS + 1);
        assert_eq!(decode(&format!("v1/{long}")), Err(LinkError::TooLarge));
    }
}
