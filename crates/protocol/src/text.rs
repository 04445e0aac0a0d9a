//! The text policy for everything players write: guest names and chat lines. One
//! policy for both; only the length limits differ.
//!
//! Text is first normalized to NFC (so the same word is stored and compared the same
//! way however it was typed); the checks and the length limits apply to the
//! normalized text, which is what the server keeps and relays. Character properties
//! and boundaries come from ICU4X (`icu_properties`, `icu_normalizer`,
//! `icu_segmenter`: Unicode's own data), not from hand-listed ranges.
//!
//! Lengths count *characters* as a reader does: extended grapheme clusters (UAX #29),
//! so the Bengali conjunct "ক্ষি" (four code points) or "é" is one character, and a
//! name in Bengali or Hindi gets as many letters as one in English. A second limit
//! on code points bounds what stacked marks and emoji sequences can hold.
//!
//! The text is refused when it holds:
//!
//! * a control character (general category `Cc`, e.g. a tab or newline) or a line or
//!   paragraph separator (`Zl`, `Zp`): text is one line;
//! * a bidirectional control (the `Bidi_Control` property: embeddings, overrides,
//!   isolates and the directional marks), which can reorder the text around it;
//! * an invisible character: any other format character (`Cf`: zero-width space,
//!   word joiner, soft hyphen, byte-order mark …) or a default-ignorable letter
//!   (`Default_Ignorable_Code_Point`, e.g. the Hangul fillers), with two exceptions
//!   that real writing needs: the joiners U+200C ZWNJ and U+200D ZWJ (Persian,
//!   Indic conjuncts, emoji ZWJ sequences) when they stand between two characters,
//!   and emoji tag characters right after an emoji (subdivision flags);
//! * an unassigned or private-use code point (`Cn`, `Co`);
//! * a combining mark with nothing to attach to (at the start, after a space), or
//!   more than [`MAX_STACKED_MARKS`] non-spacing or enclosing marks stacked on one
//!   character;
//! * nothing visible at all (only spaces, marks, joiners or U+2800 BRAILLE PATTERN
//!   BLANK, the one graphic character that renders as nothing).
//!
//! Names also must not start or end with white space. Every script's letters,
//! marks, numbers, punctuation and symbols are accepted, and so are emoji with
//! their modifiers and sequences.

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::{
    BidiControl, DefaultIgnorableCodePoint, EmojiComponent, ExtendedPictographic, GeneralCategory,
    JoinControl, WhiteSpace,
};
use icu_properties::{CodePointMapData, CodePointSetData};

/// Longest guest name (or username), characters: extended grapheme clusters after
/// NFC.
pub const MAX_NAME_CHARS: usize = 24;
/// Most code points (Unicode scalar values, after NFC) in a name.
pub const MAX_NAME_CODE_POINTS: usize = 64;
/// Longest chat line, characters: extended grapheme clusters after NFC.
pub const MAX_CHAT_CHARS: usize = 280;
/// Most code points (Unicode scalar values, after NFC) in a chat line.
pub const MAX_CHAT_CODE_POINTS: usize = 1120;
/// Most non-spacing or enclosing combining marks on one character: enough for
/// Tibetan stacks and Hebrew vowel and cantillation marks, not for "Zalgo" text.
pub const MAX_STACKED_MARKS: usize = 4;

/// U+2800 BRAILLE PATTERN BLANK: a symbol (`So`) that renders as nothing, so it
/// alone does not make text visible.
const BRAILLE_BLANK: char = '\u{2800}';

/// Why a text was refused. Code points are shown as `U+XXXX`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// Too short or too long (characters: grapheme clusters of the normalized
    /// text).
    #[error("must be 1..={max} characters, got {got}")]
    Length {
        /// The limit.
        max: usize,
        /// Characters of the normalized text.
        got: usize,
    },
    /// More code points than the limit (in fewer characters: long emoji sequences
    /// or marks).
    #[error("holds {got} code points, at most {max}")]
    CodePoints {
        /// The limit.
        max: usize,
        /// Code points of the normalized text.
        got: usize,
    },
    /// Nothing in the text renders visibly.
    #[error("renders blank: it needs at least one visible character")]
    Blank,
    /// A name starts or ends with white space.
    #[error("must not start or end with white space")]
    EdgeSpace,
    /// A control character, line or paragraph separator.
    #[error("holds the control character U+{0:04X} (text is one line)")]
    Control(u32),
    /// A bidirectional control character.
    #[error("holds the bidirectional control U+{0:04X}, which can reorder the text")]
    Bidi(u32),
    /// An invisible (format or default-ignorable) character.
    #[error("holds the invisible character U+{0:04X}")]
    Invisible(u32),
    /// An unassigned or private-use code point.
    #[error("holds U+{0:04X}, which is unassigned or private-use")]
    Unassigned(u32),
    /// ZWJ or ZWNJ not between two characters.
    #[error("the joiner U+{0:04X} must stand between two characters")]
    StrayJoiner(u32),
    /// A combining mark with no character to attach to.
    #[error("the combining mark U+{0:04X} has no character to attach to")]
    LoneMark(u32),
    /// Too many combining marks stacked on one character.
    #[error("more than {MAX_STACKED_MARKS} combining marks on one character")]
    StackedMarks,
}

/// Checks a guest display name and returns it NFC-normalized: the policy of the
/// module, 1..=[`MAX_NAME_CHARS`] characters, no white space at either end.
///
/// Errors: [`TextError`], the first problem found.
pub fn name(raw: &str) -> Result<String, TextError> {
    let s = nfc(raw);
    let ws = CodePointSetData::new::<WhiteSpace>();
    let edge = |c: Option<char>| c.is_some_and(|c| ws.contains(c));
    if edge(s.chars().next()) || edge(s.chars().next_back()) {
        // Checked first: a name of spaces is reported as such, not as blank.
        check_length(&s, NAME)?;
        return Err(TextError::EdgeSpace);
    }
    check(&s, NAME)?;
    Ok(s)
}

/// Checks a chat line and returns it NFC-normalized: the policy of the module,
/// 1..=[`MAX_CHAT_CHARS`] characters.
///
/// Errors: [`TextError`], the first problem found.
pub fn chat(raw: &str) -> Result<String, TextError> {
    let s = nfc(raw);
    check(&s, CHAT)?;
    Ok(s)
}

fn nfc(raw: &str) -> String {
    ComposingNormalizerBorrowed::new_nfc()
        .normalize(raw)
        .into_owned()
}

/// The length limits of one kind of text.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// Most characters (grapheme clusters).
    chars: usize,
    /// Most code points.
    code_points: usize,
}

const NAME: Limits = Limits {
    chars: MAX_NAME_CHARS,
    code_points: MAX_NAME_CODE_POINTS,
};

const CHAT: Limits = Limits {
    chars: MAX_CHAT_CHARS,
    code_points: MAX_CHAT_CODE_POINTS,
};

/// The number of characters of `s`: its extended grapheme clusters (UAX #29).
pub fn char_count(s: &str) -> usize {
    // The breakpoints are 0, each boundary, and the end: one more than clusters.
    icu_segmenter::GraphemeClusterSegmenter::new()
        .segment_str(s)
        .count()
        .saturating_sub(1)
}

fn check_length(s: &str, limits: Limits) -> Result<(), TextError> {
    let code_points = s.chars().count();
    if code_points > limits.code_points {
        return Err(TextError::CodePoints {
            max: limits.code_points,
            got: code_points,
        });
    }
    let got = char_count(s);
    if got == 0 || got > limits.chars {
        return Err(TextError::Length {
            max: limits.chars,
            got,
        });
    }
    Ok(())
}

/// The character checks of the module docs, on NFC text.
fn check(s: &str, limits: Limits) -> Result<(), TextError> {
    check_length(s, limits)?;
    let gc = CodePointMapData::<GeneralCategory>::new();
    let bidi_control = CodePointSetData::new::<BidiControl>();
    let join_control = CodePointSetData::new::<JoinControl>();
    let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
    let white_space = CodePointSetData::new::<WhiteSpace>();
    let pictographic = CodePointSetData::new::<ExtendedPictographic>();
    let emoji_component = CodePointSetData::new::<EmojiComponent>();

    let mut visible = false;
    // A character that combining marks (and joiners) can attach to precedes.
    let mut base = false;
    // Non-spacing or enclosing marks on the current base.
    let mut stacked = 0;
    // The previous character was an emoji or an emoji tag (tags may follow).
    let mut tag_ok = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let cat = gc.get(c);
        let code = c as u32;
        let after_emoji = tag_ok;
        tag_ok = false;
        if matches!(
            cat,
            GeneralCategory::Control
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
        ) {
            return Err(TextError::Control(code));
        }
        if bidi_control.contains(c) {
            return Err(TextError::Bidi(code));
        }
        if join_control.contains(c) {
            let next_ok = chars
                .peek()
                .is_some_and(|&n| !white_space.contains(n) && !join_control.contains(n));
            if !base || !next_ok {
                return Err(TextError::StrayJoiner(code));
            }
            continue;
        }
        if cat == GeneralCategory::Format {
            // Emoji tag characters (E0020..E007F) spell subdivision flags after 🏴.
            if after_emoji && emoji_component.contains(c) {
                tag_ok = true;
                continue;
            }
            return Err(TextError::Invisible(code));
        }
        if matches!(
            cat,
            GeneralCategory::Unassigned | GeneralCategory::PrivateUse | GeneralCategory::Surrogate
        ) {
            return Err(TextError::Unassigned(code));
        }
        if matches!(
            cat,
            GeneralCategory::NonspacingMark
                | GeneralCategory::EnclosingMark
                | GeneralCategory::SpacingMark
        ) {
            if !base {
                return Err(TextError::LoneMark(code));
            }
            if cat != GeneralCategory::SpacingMark {
                stacked += 1;
                if stacked > MAX_STACKED_MARKS {
                    return Err(TextError::StackedMarks);
                }
            }
            // A variation selector keeps an emoji open for tags and modifiers.
            tag_ok = after_emoji;
            continue;
        }
        if white_space.contains(c) {
            base = false;
            stacked = 0;
            continue;
        }
        if ignorable.contains(c) {
            // Default-ignorable letters such as the Hangul fillers render blank.
            return Err(TextError::Invisible(code));
        }
        base = true;
        stacked = 0;
        tag_ok = pictographic.contains(c);
        visible |= c != BRAILLE_BLANK;
    }
    if !visible {
        return Err(TextError::Blank);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok_name(s: &str) {
        assert_eq!(name(s).as_deref(), Ok(s), "{s:?} is a good name");
    }

    fn ok_chat(s: &str) {
        assert_eq!(chat(s).as_deref(), Ok(s), "{s:?} is a good chat line");
    }

    #[test]
    fn real_writing_in_any_script_and_emoji_sequences_are_accepted() {
        for s in [
            "Ada",
            "Ana María",
            "玩家一号",
            "Zoë-42_!",
            // ZWJ emoji sequences (woman technologist; family) and text after one.
            "👩\u{200D}💻",
            "👨\u{200D}👩\u{200D}👧\u{200D}👦 fam",
            // Persian with ZWNJ (U+200C) between the two parts of the verb.
            "می\u{200C}خواهم",
            // Hindi conjunct with ZWJ (U+200D) after the virama.
            "क्\u{200D}ष",
            // Bengali: spacing vowel signs (Mc) and a nukta (Mn).
            "আমার নাম রবি",
            "বাংলা ভাষা",
            "হিন্দি",
            // Tibetan stack (three marks on one letter), Thai tone marks.
            "བསྒྲུབས",
            "กิ่ง",
            // Skin-tone modifier, keycap (VS16 + enclosing keycap), heart with VS16.
            "👍🏽",
            "1\u{FE0F}\u{20E3}",
            "❤\u{FE0F}",
            // Regional-indicator flag and a subdivision flag (tag sequence).
            "🇧🇩",
            "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
            // Ideographic space inside a name.
            "山田\u{3000}太郎",
        ] {
            ok_name(s);
            ok_chat(s);
        }
        ok_chat("আমি বাংলায় গান গাই, তুমি? 🙂");
        ok_chat(" spaces at the ends are fine in chat ");
    }

    #[test]
    fn text_is_nfc_normalized() {
        // e + COMBINING ACUTE is stored as the precomposed é.
        assert_eq!(name("Zoe\u{301}").as_deref(), Ok("Zo\u{E9}"));
        assert_eq!(chat("cafe\u{301}").as_deref(), Ok("caf\u{E9}"));
        // U+0958 (क़) is a composition exclusion and becomes क + nukta: two code
        // points, one character.
        assert_eq!(name("\u{958}").as_deref(), Ok("\u{915}\u{93C}"));
        assert_eq!(char_count(&"\u{958}".repeat(13)), 13);
        assert_eq!(name(&"\u{958}".repeat(24)).map(|n| char_count(&n)), Ok(24));
    }

    #[test]
    fn blank_text_is_refused() {
        assert_eq!(name("\u{2800}"), Err(TextError::Blank));
        assert_eq!(chat("\u{2800}\u{2800}"), Err(TextError::Blank));
        assert_eq!(chat("   "), Err(TextError::Blank));
        assert_eq!(name(" "), Err(TextError::EdgeSpace));
        assert_eq!(name(""), Err(TextError::Length { max: 24, got: 0 }));
        assert_eq!(chat(""), Err(TextError::Length { max: 280, got: 0 }));
        // The Hangul filler is a default-ignorable letter that renders blank.
        assert_eq!(name("\u{3164}"), Err(TextError::Invisible(0x3164)));
    }

    #[test]
    fn combining_marks_need_a_base_and_may_not_pile_up() {
        assert_eq!(name("\u{301}\u{301}"), Err(TextError::LoneMark(0x301)));
        assert_eq!(chat("a \u{301}"), Err(TextError::LoneMark(0x301)));
        assert_eq!(chat("\u{FE0F}"), Err(TextError::LoneMark(0xFE0F)));
        // Four marks on one letter pass, five do not.
        let four = format!("Z{}", "\u{300}\u{301}\u{302}\u{303}");
        assert!(chat(&four).is_ok());
        assert_eq!(
            chat(&format!("{four}\u{304}")),
            Err(TextError::StackedMarks)
        );
        assert_eq!(
            name(&format!("Z{}", "\u{336}".repeat(9))),
            Err(TextError::StackedMarks)
        );
    }

    #[test]
    fn bidi_controls_are_refused() {
        // Isolates (LRI … PDI), the right-to-left override, and the marks.
        assert_eq!(name("abc\u{2066}xyz\u{2069}"), Err(TextError::Bidi(0x2066)));
        assert_eq!(chat("\u{202E}olleh"), Err(TextError::Bidi(0x202E)));
        assert_eq!(chat("a\u{202E}"), Err(TextError::Bidi(0x202E)));
        assert_eq!(name("a\u{200F}b"), Err(TextError::Bidi(0x200F)));
        assert_eq!(chat("x\u{61C}y"), Err(TextError::Bidi(0x61C)));
    }

    #[test]
    fn invisible_format_characters_are_refused() {
        assert_eq!(chat("\u{200B}"), Err(TextError::Invisible(0x200B)));
        assert_eq!(name("zero\u{200B}width"), Err(TextError::Invisible(0x200B)));
        assert_eq!(name("soft\u{AD}hyphen"), Err(TextError::Invisible(0xAD)));
        assert_eq!(chat("bom\u{FEFF}"), Err(TextError::Invisible(0xFEFF)));
        assert_eq!(chat("a\u{2060}b"), Err(TextError::Invisible(0x2060)));
        // A tag character outside an emoji tag sequence.
        assert_eq!(chat("a\u{E0067}"), Err(TextError::Invisible(0xE0067)));
    }

    #[test]
    fn joiners_must_stand_between_two_characters() {
        assert_eq!(chat("\u{200D}"), Err(TextError::StrayJoiner(0x200D)));
        assert_eq!(name("\u{200C}ab"), Err(TextError::StrayJoiner(0x200C)));
        assert_eq!(name("ab\u{200D}"), Err(TextError::StrayJoiner(0x200D)));
        assert_eq!(chat("a \u{200D}b"), Err(TextError::StrayJoiner(0x200D)));
        assert_eq!(chat("a\u{200D} b"), Err(TextError::StrayJoiner(0x200D)));
        assert_eq!(
            chat("a\u{200D}\u{200D}b"),
            Err(TextError::StrayJoiner(0x200D))
        );
    }

    #[test]
    fn controls_unassigned_and_private_use_are_refused() {
        assert_eq!(name("a\nb"), Err(TextError::Control(0x0A)));
        assert_eq!(name("tab\there"), Err(TextError::Control(0x09)));
        assert_eq!(chat("\u{7}"), Err(TextError::Control(0x07)));
        assert_eq!(chat("one\u{2028}two"), Err(TextError::Control(0x2028)));
        assert_eq!(chat("a\u{E000}"), Err(TextError::Unassigned(0xE000)));
        assert_eq!(chat("a\u{378}"), Err(TextError::Unassigned(0x378)));
    }

    /// Lengths count characters as a reader does (grapheme clusters, with Unicode
    /// 15.1's Indic conjuncts): a Bengali full name of 25 code points is 10
    /// characters and fits (it was refused when code points were counted); a ZWJ
    /// emoji sequence is one character; 25 Bengali letters do not fit; ten family
    /// emoji are 10 characters but 70 code points, over the 64 of a name.
    #[test]
    fn lengths_count_characters_as_a_reader_does() {
        let bn = "অর্ঘ্যদীপ বন্দ্যোপাধ্যায়";
        assert_eq!(bn.chars().count(), 25);
        assert_eq!(char_count(bn), 10);
        ok_name(bn);
        let hi = "श्रीकृष्ण चट्टोपाध्याय";
        assert_eq!(char_count(hi), 9);
        ok_name(hi);
        let family = "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}";
        assert_eq!(char_count(family), 1);
        assert_eq!(
            name(&"ক".repeat(25)),
            Err(TextError::Length { max: 24, got: 25 })
        );
        assert_eq!(
            name(&family.repeat(10)),
            Err(TextError::CodePoints { max: 64, got: 70 })
        );
        assert_eq!(
            chat(&"x".repeat(1121)),
            Err(TextError::CodePoints {
                max: 1120,
                got: 1121
            })
        );
    }

    #[test]
    fn names_have_no_edge_spaces_and_at_most_24_characters() {
        assert_eq!(name(" Ana"), Err(TextError::EdgeSpace));
        assert_eq!(name("Ana "), Err(TextError::EdgeSpace));
        assert_eq!(name("Ana\u{3000}"), Err(TextError::EdgeSpace));
        ok_name(&"x".repeat(24));
        assert_eq!(
            name(&"x".repeat(25)),
            Err(TextError::Length { max: 24, got: 25 })
        );
        ok_chat(&"x".repeat(280));
        assert_eq!(
            chat(&"x".repeat(281)),
            Err(TextError::Length { max: 280, got: 281 })
        );
    }
}
