"""The phrase lexicon for ``no_injection_patterns``, written as small readable templates.

Templates use lower-case words, ``(a|b)`` groups, ``?`` and the gap marker
``~`` (one free word that is not "my"). :func:`build` turns a template into a
regex in which one space may appear between any two letters of a word (the
trace of a tab or line break inserted mid-word) and the match starts and ends
on word boundaries. Only literals, single-char classes, ``?`` and bounded
repeats are emitted, so every pattern is linear in the text length.
"""

from __future__ import annotations

import re

from evaluators.detectors.gates import GatedPattern

_GAP = "(?:(?!my )[a-z'\\-]{2,20} )"
_WORD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789'")


_SPECIAL = frozenset("()[]?~|")


def _group_end(template: str, i: int) -> int:
    """Index of the bracket closing the one opened at ``i``."""
    depth = 0
    for j in range(i, len(template)):
        if template[j] in "([":
            depth += 1
        elif template[j] in ")]":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"unbalanced template: {template!r}")


def _split_top(body: str) -> list[str]:
    """Alternatives of a group body, split on top-level ``|``."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in body:
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "|" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _literal_prefixes(alt: str, limit: int = 32) -> tuple[tuple[str, ...], bool]:
    """Space-free literals one of which an alternative always starts with, and
    whether they were cut short (at an optional piece, a gap or a class)."""
    outs: tuple[str, ...] = ("",)
    i, n = 0, len(alt)
    while i < n:
        ch = alt[i]
        if ch == "(":
            j = _group_end(alt, i)
            if j + 1 < n and alt[j + 1] == "?":
                return outs, True
            subs = [_literal_prefixes(a, limit) for a in _split_top(alt[i + 1 : j])]
            words = tuple(dict.fromkeys(w for ws, _ in subs for w in ws))
            if len(outs) * len(words) > limit:
                return outs, True
            outs = tuple(o + w for o in outs for w in words)
            if any(cut for _, cut in subs):
                return outs, True
            i = j + 1
        elif ch in _SPECIAL or (i + 1 < n and alt[i + 1] == "?"):
            return outs, True
        else:
            if ch != " ":
                outs = tuple(o + ch for o in outs)
            i += 1
    return outs, False


def gate_runs(template: str, max_alts: int = 32) -> list[tuple[str, ...]]:
    """Literal runs every match of ``template`` contains, as they read with spaces removed.

    A run is a tuple of alternatives one of which must occur in the space-free
    text for the template to match: consecutive required words are joined
    ("you are now" -> "youarenow"), optional parts and gaps end a run, and a
    group contributes its alternatives (each cut at its first optional piece).
    Only single literals are joined, so a run never has more alternatives than
    the group it came from.
    """
    runs: list[tuple[str, ...]] = []
    cur: tuple[str, ...] = ("",)

    def close() -> None:
        nonlocal cur
        if all(cur):
            runs.append(cur)
        cur = ("",)

    i, n = 0, len(template)
    while i < n:
        ch = template[i]
        if ch in "([":
            j = _group_end(template, i)
            body, i = template[i + 1 : j], j + 1
            optional = i < n and template[i] == "?"
            i += optional
            if ch == "[" or optional:
                close()
                continue
            alts = [_literal_prefixes(a) for a in _split_top(body)]
            words = tuple(dict.fromkeys(w for ws, _ in alts for w in ws))
            if not all(words):
                close()
                continue
            if len(words) > 1 or len(cur) > 1:
                close()  # joining would multiply the checks: start a new run
            if len(words) <= max_alts:
                cur = tuple(c + w for c in cur for w in words)
            if any(cut for _, cut in alts):
                close()
        elif ch == "~" or (i + 1 < n and template[i + 1] == "?"):
            i += 1
            if i < n and template[i] == "?":
                i += 1
            close()
        else:
            if ch != " ":
                cur = tuple(c + ch for c in cur)
            i += 1
    close()
    return runs


def build(template: str) -> re.Pattern[str]:
    """Compile one template into a disguise-tolerant, word-bounded regex."""
    out: list[str] = []
    prev = ""
    for ch in template:
        if ch in _WORD and prev in _WORD and prev:
            out.append(" ?")
        out.append("-" if ch == "-" else ch)
        prev = ch
    src = "".join(out).replace("~", _GAP)
    return re.compile(f"(?<![a-z]){src}(?![a-z])")


_DET = "(all |any |every |each )?(of )?(the |your |these |those |its |this |such )?"
_PREV = (
    "(previous |prior |above |earlier |preceding |original |existing |initial |current |"
    "system |safety |old |other |following |visible |usual |standard |normal )?"
)
_RULES = (
    "(instructions?|prompts?|rules|directives?|guidelines|guardrails|policy|policies|"
    "programming|constraints|restrictions|commands|requests?|tasks?|guidance|system prompt|"
    "output schema|documentation|checks|context|training)"
)
_MACHINE = "(ai|assistant|model|bot|chatbot|agent|llm|persona|character|version)"

# (kind, template, detail)
PHRASES: tuple[tuple[str, str, str], ...] = (
    (
        "ignore_instructions",
        f"(ignore|disregard|forget|override|bypass|abandon|discard) {_DET}{_PREV}~?{_RULES}",
        "tells the reader to drop its instructions",
    ),
    (
        "ignore_instructions",
        "forget (everything|all of that|all that|what you were told|your (training|rules))",
        "tells the reader to forget its instructions",
    ),
    (
        "instruction_override",
        "(this|these) (instructions?|directives?|messages?|notes?|commands?) "
        "(supersedes?|overrides?|replaces?|takes? precedence over)",
        "claims precedence over the reader's instructions",
    ),
    (
        "instruction_override",
        "(overrides?|supersedes?) (any|all|the|your) "
        "(conflicting |previous |prior |other |system )?"
        "(instructions?|prompts?|rules|system prompt)",
        "claims precedence over the reader's instructions",
    ),
    (
        "role_override",
        "you are no longer (a|an|the|bound|restricted|required|limited)",
        "reassigns the reader's role",
    ),
    (
        "role_override",
        "from now on,? (you are|you're|you will be|you will act|you'll act|you will respond|"
        "you must|you should|act|respond|behave|pretend|your name|you will always|you will never)",
        "reassigns the reader's role",
    ),
    ("role_override", f"you are now (a |an |the )?~?~?{_MACHINE}", "reassigns the reader's role"),
    (
        "role_override",
        "you are now (in )?(dan|jailbroken|unrestricted|unfiltered|uncensored|free from|"
        "developer mode|god mode|no longer)",
        "reassigns the reader's role",
    ),
    (
        "role_override",
        "(please |now |you will |you must |you should |you are to )(act|behave|respond) as "
        "(a|an|if)",
        "reassigns the reader's role",
    ),
    (
        "role_override",
        "pretend (that )?(you are|you're|to be) (a |an |the )?(not|no longer|dan|unrestricted|"
        "unfiltered|evil|free|human|different|jailbroken|an ai|a human)",
        "reassigns the reader's role",
    ),
    (
        "decoy_framing",
        "your (new |real |true |actual |only |primary )(role|task|job|purpose|instructions?|"
        "objective|goal|mission|orders?) (is|are|:|now)",
        "frames the visible task as a decoy",
    ),
    ("decoy_framing", "(are|is) (just |only )?(a )?decoys?", "frames the visible task as a decoy"),
    (
        "system_prompt_leak",
        "(reveal|show|print|output|display|repeat|tell me|share|leak|dump|disclose|send|give me|"
        "paste|write out|recite|expose|return|provide|copy) (me |us )?(all |any )?(of )?"
        "(the |your |its )?(full |entire |complete |original |hidden |initial |exact |secret |"
        "internal |raw |confidential )?(system prompt|system message|system instructions|"
        "developer instructions|developer message|hidden instructions|initial instructions|"
        "initial prompt|original instructions|confidential instructions|prompt instructions)",
        "asks the reader to disclose its system prompt",
    ),
    (
        "system_prompt_leak",
        "(repeat|print|output) (everything|all|the text|the words) (above|before this)",
        "asks the reader to disclose its prompt",
    ),
    (
        "jailbreak_persona",
        "(do anything now|dan mode|developer mode (enabled|on|activated)|jailbroken|"
        "jailbreak mode|(unrestricted|unfiltered|uncensored) (ai|model|assistant|mode|llm))",
        "invokes a jailbreak persona",
    ),
    (
        "jailbreak_persona",
        "(model|assistant|ai|you) with no (content |safety |ethical )?(policy|policies|"
        "restrictions|filters|guidelines|limits|rules)",
        "invokes a jailbreak persona",
    ),
    (
        "jailbreak_persona",
        "(never|will not|won't) (refuses|refuse|add disclaimers|adds disclaimers)",
        "invokes a jailbreak persona",
    ),
    (
        "safety_bypass",
        "(bypass|circumvent|disable|turn off) (your |the |all |any )?(usual )?(safety |content |"
        "ethical |security )?(filters?|guidelines|restrictions|rules|guardrails|moderation|"
        "safeguards|approval workflow|approval|checks)",
        "asks the reader to bypass its safeguards",
    ),
    (
        "safety_bypass",
        "skip (your|all) (usual |normal |standard |regular )?(checks|review|safety checks|"
        "validation|guardrails|rules)",
        "asks the reader to skip its checks",
    ),
    (
        "forged_authority",
        "(authorize|authorizes|authorizing|authorized|permit|permitting|allow|allowing|grant|"
        "granting) you (to |permission to )?(bypass|ignore|skip|override|disable|circumvent|"
        "proceed without)",
        "claims authority to lift the reader's limits",
    ),
    (
        "forged_authority",
        "you have (my |full |explicit |admin )?(permission|authorization)( on record)?[.;!]",
        "claims authority to lift the reader's limits",
    ),
    (
        "concealment",
        "(do not|don't|never) (tell|inform|notify|alert|let) (the )?(user|users|human|reporters?|"
        "attendees|requester|operator|anyone)",
        "asks the reader to hide what it does",
    ),
    (
        "concealment",
        "(do not|don't|never) (mention|reveal|disclose) (this|it|that|these|any of this|this step|"
        "these (instructions|commands)|that you)",
        "asks the reader to hide what it does",
    ),
    (
        "concealment",
        "without (telling|notifying|informing|alerting|asking) (the )?(user|users|human|"
        "other attendees|reporters|anyone)",
        "asks the reader to act behind the user's back",
    ),
    (
        "concealment",
        "(do not|don't) (log|record) (this|the) (action|step|request|change)",
        "asks the reader to hide what it does",
    ),
)

# Addressing an AI reader: "Note to the AI resume screener:", "Triage bot:", ...
_INHERENT = (
    "assistant|assistants|model|models|llm|llms|ai|chatbot|bot|bots|copilot|gpt|"
    "chatgpt|claude|gemini"
)
_ROLE = (
    "agent|agents|reviewer|scanner|screener|summarizer|summarizers|summariser|grader|"
    "crawler|crawlers|indexer|reader|triager|parser|evaluator|judge|scraper"
)


def tolerant_words(words: str) -> str:
    """``a|bc`` -> ``a|b ?c``: one optional space between letters of each alternative."""
    return "|".join(" ?".join(w) for w in words.split("|"))


_STOP_MODS = "(?!(?:the|an|for|to|of|and|or|in|on|with|as|is|are|my|our|his|her|their|your|its)\\b)"
ADDRESSEE_NOUNS = (*(w for w in (_INHERENT + "|" + _ROLE).split("|") if len(w) > 2), "-bot")
AI_WORD_RE = re.compile(r"(?<![a-z])a ?i(?![a-z])")
ADDRESSEE_RE = re.compile(
    r"(?<![a-z])(?:(?:the|any|all|an|a|our|dear) )?"
    rf"(?P<mods>(?:{_STOP_MODS}[a-z\-]{{1,20}} ){{0,4}}?)"
    rf"(?P<noun>(?:{tolerant_words(_INHERENT + '|' + _ROLE)})(?![a-z])|[a-z][a-z\-]{{1,30}}-bot)"
    r"(?: (?:[a-z\-]{1,20} )?(?:[a-z\-]{1,20}ing)(?: (?:or|and) [a-z\-]{2,20}ing)?"
    r"(?: [a-z0-9'\-]{1,20}){0,4}?)?"
    r" ?(?::|,|—|–|--)"
)
INHERENT_NOUNS = frozenset(_INHERENT.split("|"))
MACHINE_MODS = frozenset(
    [
        "ai",
        "automated",
        "auto",
        "llm",
        "language",
        "machine",
        "ml",
        "bot",
        "robot",
        "gpt",
        "autonomous",
    ]
)
ADDRESS_PREFIX_WORDS = frozenset(
    [
        "to",
        "for",
        "attention",
        "attn",
        "hey",
        "dear",
        "also",
        "me",
        "note",
        "reminder",
        "are",
        "ps",
        "hi",
        "hello",
    ]
)
ADDRESS_PREFIX_CHARS = frozenset(".!?:;>#*/([-—–,\"'|")

DIRECTIVE_CUE_RE = build(
    "(ignore|disregard|forget|output|print|reveal|send|email|forward|call|run|execute|delete|"
    "remove|add|append|insert|create|cancel|approve|mark|assign|award|recommend|report|treat|"
    "skip|stop|post|publish|grant|set|use|tell|say|respond|reply|include|write|record|decode|"
    "follow|perform|close|purge|fetch|open|visit|navigate|upload|download|transfer|pay|disclose|"
    "exfiltrate|share|export|invite|do not|don't|never|always|must|should|instead|please|"
    "summarize|answer|push|force|retrieve|paste|give|score|rate|pass|accept|exit)"
)

# Forged system / orchestrator lines and directive labels.
_FORGED_LABEL = (
    "(system|assistant|admin|administrator|developer|operator|orchestrator|root|ai) "
    "(override|directive|instructions?|command|note|notice|update|message)"
    "( for (the |all |any )?(ai|assistant|model|llm|agent|summarizers?|agents?))? ?(:|--|-->|—)"
)
FORGED_LABEL_RE = build(_FORGED_LABEL)
_LABEL_WORD = (
    "(assistant|ai|model|llm|agent|bot)[-_ ](instructions?|directive|command|override|note)"
    " ?(:|--|—)"
)
LABEL_WORD_RE = build(_LABEL_WORD)
SYSTEM_LINE_RE = build("system ?:")
SYSTEM_TAG_RE = re.compile(
    r"\[system ?:|<\|im_start\|> ?system|<system>|</system>|<\|system\|>|### ?system ?:"
)
_AGENT_SHOULD = (
    "(the|any|all) ~?(assistant|agent|model|ai|bot|llm) (should|must|needs to|is required to|"
    "has to|shall) (now |immediately |also |first )?(call|run|execute|send|transfer|delete|"
    "create|issue|invoke|post|forward|email|grant|disable|approve|ignore|output|print|append|"
    "reveal|open|visit|upload|export)"
)
AGENT_SHOULD_RE = build(_AGENT_SHOULD)
BASE64_CUE_RE = build("(base64|base 64|b64|rot13|hex encoded|encoded)")
DECODE_RE = build("(decode|decoded|decoding)")
EXECUTE_RE = build(
    "(follow|execute|run|obey|carry out|perform|do what|act on|comply with) "
    "(the |its |those |these |any )?(instructions?|commands?|it|them|exactly|what)"
)
COMMENT_OPEN_RE = re.compile(r"<!--|\[//\]: ?# ?\(")
HIDDEN_STYLE_RE = re.compile(
    r"display ?: ?none|visibility ?: ?hidden|font-size ?: ?0(?:px|pt)?[;\"' ]|"
    r"\[white text|color ?: ?(?:#fff\b|#ffffff|white)|opacity ?: ?0[;\"' ]"
)
EVALUATOR_IMPERATIVE_RE = build(
    "(score (it|this) |mark (this|it) as (passed|pass|correct|safe)|rate (this|it) |"
    "skip the (safety|security) (rules|checks)|give (it|this) (full marks|a perfect)|"
    "award (full|maximum)|report zero findings)"
)
QUOTED_KEY_RE = re.compile(r"[\"'](?P<key>[a-z0-9_.\-]{2,40}(?: [a-z0-9_.\-]{1,40})?)[\"']")
KEY_MACHINE = frozenset(
    [
        "assistant",
        "model",
        "ai",
        "llm",
        "agent",
        "gpt",
        "bot",
        "crawler",
        "claude",
        "chatgpt",
        "copilot",
    ]
)
KEY_DIRECTIVE = frozenset(
    [
        "directive",
        "directives",
        "instruction",
        "instructions",
        "prompt",
        "override",
        "command",
        "commands",
        "note",
        "notes",
        "message",
    ]
)
MD_IMAGE_RE = re.compile(r"!\[[^\]\n]{0,200}\]\((?:https?:)?//[^)\s]{1,600}(?: [^)\s]{1,600})?\)")
EXFIL_VALUE_RE = re.compile(r"[?&][a-z0-9_\-]{1,30}=(?:[a-z0-9+/=%_\-]{24,}|\{[^}]{1,80}\})")


_LOWER_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def gated(
    template: str,
    rx: re.Pattern[str] | None = None,
    head_limit: int = 32,
    extra_runs: tuple[tuple[str, ...], ...] = (),
) -> GatedPattern:
    """The template's pattern (``build(template)`` unless given) with its literal
    gates and the literals every match starts with (see ``GatedPattern``).
    A built pattern opens with ``(?<![a-z])``: no match follows a letter.

    ``head_limit`` caps how many start literals the template may expand to (a
    larger cap joins the first groups into pairs, a far more selective test,
    at the price of more literals in the one-pass set); ``extra_runs`` are
    further literal runs every match contains, stated by the caller."""
    pattern = rx or build(template)
    if not pattern.pattern.startswith("(?<![a-z])"):
        raise ValueError("gated() takes patterns made by build()")
    head, _ = _literal_prefixes(template, head_limit)
    runs = [*extra_runs, *gate_runs(template)]
    return GatedPattern(pattern, runs, head=head, not_after=_LOWER_LETTERS)


# Gated forms of the structural patterns (same matches, see evaluators.detectors.gates).
AGENT_SHOULD = gated(_AGENT_SHOULD, AGENT_SHOULD_RE)
# "system override", "admin note", ...: the role and the label word, joined
FORGED_LABEL = gated(_FORGED_LABEL, FORGED_LABEL_RE, head_limit=128)
LABEL_WORD = gated(_LABEL_WORD, LABEL_WORD_RE)
# with its spaces removed every match reads "system:"
SYSTEM_LINE = gated("system ?:", SYSTEM_LINE_RE, extra_runs=(("system:",),))
DECODE = gated("(decode|decoded|decoding)", DECODE_RE)
#: Every HIDDEN_STYLE_RE match contains one of these (spaces removed).
HIDDEN_STYLE_LITERALS = (
    "display:none",
    "visibility:hidden",
    "font-size:0",
    "[whitetext",
    "color:#fff",
    "color:white",
    "opacity:0",
)

# A machine reader is named by one of these words (any ADDRESSEE_RE match the
# detector keeps contains one): long ones are tested on the space-free text,
# short ones must stand as words.
MACHINE_LITERALS = (
    "assistant",
    "model",
    "llm",
    "chatbot",
    "copilot",
    "gpt",
    "claude",
    "gemini",
    "auto",
    "language",
    "machine",
    "robot",
)
MACHINE_WORD_RES = (
    re.compile(r"a ?i(?![a-z])"),
    re.compile(r"ml(?![a-z])"),
    re.compile(r"b ?o ?t(?: ?s)?(?![a-z])"),
)
#: Characters that can sit inside an ADDRESSEE_RE match (anything else ends one;
#: ':' ',' and dashes only as its last character).
ADDRESSEE_INTERIOR = frozenset("abcdefghijklmnopqrstuvwxyz0123456789' -")
ADDRESSEE_BREAK_RE = re.compile(r"[^a-z0-9' \-]")
