"""Strategy ids: derived from the source's meaning, the owner and a registration generation.

Java is identified by its canonical syntax tree (computed by the engine host), QTScript by its
normalised text. The generation counts earlier registrations of the same content by the same
user, so re-submitting after a delete registers a new strategy with a new id while re-submitting
a live one returns the same id.
"""

from __future__ import annotations

import hashlib

from backtestd.strategy.language import Language
from backtestd.strategy.qtscript import normalize_qtscript_for_id

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
ID_LENGTH = 22


def qtscript_digest(source: str) -> str:
    return hashlib.sha256(normalize_qtscript_for_id(source).encode("utf-8")).hexdigest()


def derive_strategy_id(
    user_id: str, language: Language, content_digest: str, generation: int
) -> str:
    """A 22-character base-36 id (about 113 bits of a BLAKE2b digest)."""
    material = f"{language.value}\x00{user_id}\x00{content_digest}\x00{generation}".encode()
    number = int.from_bytes(hashlib.blake2b(material, digest_size=16).digest(), "big")
    digits = []
    for _ in range(ID_LENGTH):
        number, rem = divmod(number, 36)
        digits.append(_ALPHABET[rem])
    return "".join(reversed(digits))
