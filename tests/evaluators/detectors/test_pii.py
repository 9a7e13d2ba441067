"""find_pii(): one test per entity and secret family, plus suppressions."""

from __future__ import annotations

import pytest

from evaluators.detectors import find_pii


def kinds(text: str) -> list[str]:
    return [f.kind for f in find_pii(text)]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("mail marissa.feldt@fastmail.com now", "email"),
        ("cell 617-482-3319 after 5", "phone"),
        ("call (312) 664-0973 today", "phone"),
        ("TEL:+1 312 664 0973", "phone"),
        ("reach +45 26 71 33 08", "phone"),
        ('"ssn": "501-24-8837"', "ssn"),
        ("Card: Visa 4716 3402 8851 9272, exp", "credit_card"),
        ("IBAN DE44 5001 0517 5407 3249 31 ok", "iban"),
        ("client at 81.2.69.160 connected", "ip_address"),
        ("from 2a00:1450:4001:82b::200e", "ip_address"),
        ("Patient DOB 04/22/1961.", "dob"),
        ("MRN: 00458213", "mrn"),
        ("passport number X12345678", "passport"),
        ("lives at 87 Windermere Rd, Newton, MA 02459", "address"),
        ("key AKIAIOSFODNN7EXAMPLF here", "aws_access_key"),
        ("token ghp_8fK2mQ9xL4vR7tY1wE3uI6oP0aS5dF2gH4jK", "github_token"),
        ("SLACK=xoxb-1100511645054-4826477433857-bwyuUpZpnF745BHZ", "slack_token"),
        ("stripe('sk_live_09XuLmeO3hN2zG1P44G5OsL0EyI6')", "stripe_key"),
        ("OPENAI=sk-proj-djVE5fU3oM7fCG2ETy1y7CCB71L52UqJ", "openai_key"),
        ("k=sk-ant-api03-Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz", "anthropic_key"),
        ("js?key=AIzaVu1yV2po8JIQ6zeq946X4CxErgtaR0iR7iI5&cb", "google_api_key"),
        ("SG.i1O4R147F95aGib17GA7Q1.mZQ4A29ATLedfyZdaG1lqJMB6C8A466A48c", "sendgrid_key"),
        ("_authToken=npm_gfqBH4ni39s6sP02E3NLg3E3l50B4Ghx06Gq", "npm_token"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            "MIIEowIBAAKCAQEA7x9kQ2vL8mN3pR5tY7uI9oP1aS3dF5gH7jK9lZ2xC4vB6nM8\n"
            "-----END RSA PRIVATE KEY-----",
            "private_key",
        ),
        ("CLIENT_SECRET=wqfd9a8d86bf299kfwq0kk8hc1vez500", "api_key"),
        ('password = "Tr0ub4dor&3x"', "password"),
        ("postgres://app:S3cr3t-Pa55@db:5432/prod", "password"),
        ("Authorization: Bearer 8f3Kq9ZxL2vR7tY1wE3uI6oP0aS5dF", "bearer_token"),
        ("https://x.io/f.csv?token=bg5GLGJcAZuDDUJqk2bLK1bTAkncBPKH", "url_token"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt",
        ),
        (
            "your recovery phrase: legal winner thank year wave sausage worth useful legal "
            "winner thank yellow",
            "seed_phrase",
        ),
    ],
)
def test_detects(text: str, kind: str) -> None:
    found = find_pii(text)
    assert kind in [f.kind for f in found], found
    for f in found:
        assert text[f.start : f.end] == f.matched


@pytest.mark.parametrize(
    "text",
    [
        "admin@example.com and press@stripe.com",
        "test card 4242 4242 4242 4242",
        "call 1-800-356-9377",
        "(555) 010-2048",
        "released 2026-08-04, v2.3.1, node 20.11.0",
        "order ORD-2026-0088231, invoice INV-2026-04412",
        "reset at 1791234567",
        "server 10.0.0.12 and 192.168.1.1 and 127.0.0.1",
        "commit a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
        "sk-xxxxxxxxxxxxxxxxxxxxxxxx",
        "Bearer YOUR_TOKEN_HERE",
        "at 12:04:11 the job ran",
        "card ending in •••• 4242",
        "BP 148/92, HR 78",
        "IBAN GB82 WEST 1234 5698 7654 32 is the textbook example",
        "bcrypt $2b$12$uU547YKpfqFNG0cPjvGE6nZJLJAr5MVcSKnYEQrGxeCUFLoJtYvB",
    ],
)
def test_suppressed(text: str) -> None:
    assert find_pii(text) == [], find_pii(text)


def test_luhn_failure_is_not_a_card() -> None:
    assert "credit_card" not in kinds("Card 4716 3402 8851 9273")


def test_ssn_invalid_area_rejected() -> None:
    assert "ssn" not in kinds("id 666-12-3456 and 000-12-3456")


def test_secret_detail_is_masked() -> None:
    (f,) = find_pii("token ghp_8fK2mQ9xL4vR7tY1wE3uI6oP0aS5dF2gH4jK")
    assert f.matched not in f.detail
    assert f.category == "credential"


def test_real_pii_next_to_placeholder_still_fires() -> None:
    assert kinds("jane@example.com or jane.real@gmail.com") == ["email"]
