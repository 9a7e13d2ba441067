"""Look-alike characters folded to the Latin letter a reader sees.

Applied after NFKC and lower-casing, so only lower-case forms are needed.
The table is deliberately small and hand-picked (Cyrillic and Greek letters
that render like Latin ones, plus a few symbol look-alikes): folding a whole
script would be wrong, folding what a reader mistakes for Latin is the point.
"""

from __future__ import annotations

CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h",
    "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s",
    "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h",
    "ӏ": "l", "ү": "y", "ɡ": "g", "ո": "n", "ս": "u", "ց": "g", "օ": "o",
    "ь": "b",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c",
    "ϳ": "j", "ς": "c", "μ": "u", "γ": "y",
    # Latin extensions and symbols that read as plain letters
    "ı": "i", "ȷ": "j", "ℓ": "l", "ſ": "s", "ꞵ": "b", "ɑ": "a", "ɩ": "i",
    "ʏ": "y", "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ɢ": "g",
    "ʜ": "h", "ɪ": "i", "ᴊ": "j", "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n",
    "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v",
    "ᴡ": "w", "ᴢ": "z",
    # Punctuation look-alikes that matter for tokens (hyphens, dots, at)
    "‐": "-", "‑": "-", "‒": "-", "−": "-", "﹣": "-", "⁃": "-",
    "․": ".", "‧": ".", "＠": "@",
}
