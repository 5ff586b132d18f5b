//! Size declarations of a MATLAB function, read from its text: `arguments` blocks
//! with sizes (`x (3,:) double`), and comment annotations naming symbolic extents
//! (`%! size A[N,M] b[M,1]`). A `:` declares nothing about its dimension.

use shapex_text::Span;
use std::collections::BTreeMap;

/// One declared dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extent {
    /// The extent's name: a symbol (`N`) or a literal size (`3`); `None` for `:`.
    pub name: Option<String>,
    pub span: Span,
}

/// The declared sizes of one function's inputs and outputs, one extent per dimension.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    pub inputs: BTreeMap<String, Vec<Extent>>,
    pub outputs: BTreeMap<String, Vec<Extent>>,
    /// Names an annotation sizes without saying whether input or output (`%! size`).
    pub either: BTreeMap<String, Vec<Extent>>,
}

impl Sizes {
    /// The declared size of input `name`, if any; an annotation's symbolic extents
    /// say more than an `arguments` block's, so they win.
    pub fn input(&self, name: &str) -> Option<&Vec<Extent>> {
        self.either.get(name).or_else(|| self.inputs.get(name))
    }

    pub fn output(&self, name: &str) -> Option<&Vec<Extent>> {
        self.either.get(name).or_else(|| self.outputs.get(name))
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty() && self.outputs.is_empty() && self.either.is_empty()
    }
}

/// The declarations on the lines of `span` in `source`, except lines that start
/// inside one of `skip` (nested functions declare their own).
pub fn declarations(source: &str, span: Span, skip: &[Span]) -> Sizes {
    let mut sizes = Sizes::default();
    let mut block: Option<Block> = None;
    let end = span.end.min(source.len());
    let mut start = span.start.min(end);
    while start < end {
        let line_end = source[start..end].find('\n').map_or(end, |i| start + i);
        let line = &source[start..line_end];
        if !skip.iter().any(|s| s.start <= start && start < s.end) {
            read_line(line, start, &mut block, &mut sizes);
        }
        start = line_end + 1;
    }
    sizes
}

/// Which part of the signature an `arguments` block validates.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Inputs,
    Outputs,
    /// `(Repeating)` inputs: not one array each, so not declared here.
    Ignored,
}

fn read_line(line: &str, offset: usize, block: &mut Option<Block>, sizes: &mut Sizes) {
    let trimmed = line.trim_start();
    let at = offset + (line.len() - trimmed.len());
    if let Some(rest) = trimmed.strip_prefix("%!") {
        let rest_at = at + 2;
        let body = rest.trim_start();
        if let Some(items) = body.strip_prefix("size") {
            let items_at = rest_at + (rest.len() - body.len()) + 4;
            for (name, extents) in size_items(items, items_at) {
                sizes.either.insert(name, extents);
            }
        }
        return;
    }
    if let Some(kind) = *block {
        if word_at(trimmed, "end") {
            *block = None;
        } else if kind != Block::Ignored {
            if let Some((name, extents)) = validation(trimmed, at) {
                let map = match kind {
                    Block::Inputs => &mut sizes.inputs,
                    _ => &mut sizes.outputs,
                };
                map.insert(name, extents);
            }
        }
        return;
    }
    if word_at(trimmed, "arguments") && block_header(&trimmed["arguments".len()..]) {
        let attrs = trimmed["arguments".len()..].to_ascii_lowercase();
        *block = Some(if attrs.contains("output") {
            Block::Outputs
        } else if attrs.contains("repeating") {
            Block::Ignored
        } else {
            Block::Inputs
        });
    }
}

/// Whether the rest of a line after `arguments` makes it a block's header: nothing, a
/// comment, or attributes in parentheses (not `arguments = …` or `arguments{1}`).
fn block_header(rest: &str) -> bool {
    let rest = rest.trim();
    let rest = match rest.strip_prefix('(') {
        Some(r) => match r.find(')') {
            Some(close) => r[close + 1..].trim(),
            None => return false,
        },
        None => rest,
    };
    rest.is_empty() || rest.starts_with('%')
}

/// Whether `text` starts with the keyword `word` (not a longer name).
fn word_at(text: &str, word: &str) -> bool {
    text.strip_prefix(word)
        .is_some_and(|r| !r.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}

fn ident_len(text: &str) -> usize {
    let first = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first {
        return 0;
    }
    text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len())
}

/// `A[N,M] b[M][1]` → each name with its extents.
fn size_items(text: &str, offset: usize) -> Vec<(String, Vec<Extent>)> {
    let mut out = Vec::new();
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        if bytes[i].is_ascii_whitespace() || bytes[i] == b',' || bytes[i] == b';' {
            i += 1;
            continue;
        }
        let n = ident_len(&text[i..]);
        if n == 0 {
            break;
        }
        let name = text[i..i + n].to_string();
        i += n;
        let mut extents = Vec::new();
        while text[i..].starts_with('[') {
            let Some(close) = text[i..].find(']') else {
                return out;
            };
            extents.extend(extent_list(&text[i + 1..i + close], offset + i + 1));
            i += close + 1;
        }
        if extents.len() >= 2 {
            out.push((name, extents));
        }
    }
    out
}

/// `N, 3, :` → extents (an item that is neither a name, a count nor `:` ends the list).
fn extent_list(text: &str, offset: usize) -> Vec<Extent> {
    let mut out = Vec::new();
    let mut at = 0;
    for item in text.split(',') {
        let trimmed = item.trim();
        let start = offset + at + (item.len() - item.trim_start().len());
        let span = Span::new(start, start + trimmed.len());
        at += item.len() + 1;
        let name = if trimmed == ":" {
            None
        } else if trimmed.bytes().all(|b| b.is_ascii_digit()) && !trimmed.is_empty() {
            Some(trimmed.trim_start_matches('0').to_string()).map(|s| {
                if s.is_empty() {
                    "0".to_string()
                } else {
                    s
                }
            })
        } else if ident_len(trimmed) == trimmed.len() && !trimmed.is_empty() {
            Some(trimmed.to_string())
        } else {
            return Vec::new();
        };
        out.push(Extent { name, span });
    }
    out
}

/// A validation line `x (3,:) double {mustBeFinite} = 1`: the name and its sizes, when
/// it declares sizes of a plain name (not `opts.Name`, a name-value argument).
fn validation(line: &str, offset: usize) -> Option<(String, Vec<Extent>)> {
    let n = ident_len(line);
    if n == 0 || line[n..].starts_with('.') {
        return None;
    }
    let rest = &line[n..];
    let after = rest.trim_start();
    let open = n + (rest.len() - after.len());
    let inner = after.strip_prefix('(')?;
    let close = inner.find(')')?;
    let extents = extent_list(&inner[..close], offset + open + 1);
    // Only literal sizes and `:` are legal here; a name would be an error in MATLAB.
    let literal = extents.iter().all(|e| {
        e.name
            .as_deref()
            .is_none_or(|n| n.bytes().all(|b| b.is_ascii_digit()))
    });
    (extents.len() >= 2 && literal).then(|| (line[..n].to_string(), extents))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(extents: &[Extent]) -> Vec<String> {
        extents
            .iter()
            .map(|e| e.name.clone().unwrap_or_else(|| ":".into()))
            .collect()
    }

    #[test]
    fn reads_size_annotations_and_arguments_blocks() {
        let src = "function y = f(A, b, opts)\n%! size A[N,M] b[M][1]\narguments\n  A (:,:) double\n  b (3, 1)\n  opts.Tol (1,1) = 1\nend\narguments (Output)\n  y (3,1)\nend\ny = A*b;\nend\n";
        let sizes = declarations(src, Span::new(0, src.len()), &[]);
        assert_eq!(names(&sizes.either["A"]), ["N", "M"]);
        assert_eq!(names(&sizes.either["b"]), ["M", "1"]);
        assert_eq!(names(&sizes.inputs["A"]), [":", ":"]);
        assert_eq!(names(&sizes.inputs["b"]), ["3", "1"]);
        assert!(!sizes.inputs.contains_key("opts"));
        assert_eq!(names(&sizes.outputs["y"]), ["3", "1"]);
        // The annotation wins for inputs it names.
        assert_eq!(names(sizes.input("A").unwrap()), ["N", "M"]);
        let n = &sizes.either["A"][0];
        assert_eq!(&src[n.span.start..n.span.end], "N");
    }

    #[test]
    fn skips_nested_lines_and_malformed_items() {
        let src = "%! size x[N,M]\n%! size y[N]\n%! size z[N,2*M]\n";
        let skip = [Span::new(0, 5)];
        let sizes = declarations(src, Span::new(0, src.len()), &skip);
        assert!(sizes.is_empty(), "{sizes:?}");
        // `arguments` as a variable starts no block.
        let src = "arguments = {1};\nx (1,2)\nend\n";
        assert!(declarations(src, Span::new(0, src.len()), &[]).is_empty());
    }
}
