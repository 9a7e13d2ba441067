"""The ``iris`` command line: version, migrate, the bind guard."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import check_bind, main
from service.settings import Settings


def test_version_prints_bare_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out and out[0].isdigit()


def test_migrate_creates_the_database_under_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("IRIS_DB_URL", raising=False)
    monkeypatch.delenv("IRIS_DB_PATH", raising=False)
    result = subprocess.run(
        [sys.executable, "-m", "service", "migrate", "--home", str(tmp_path / "h")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "h" / "iris.db").exists()
    assert "revision" in result.stdout


@pytest.mark.parametrize(
    ("host", "key", "allow", "refused"),
    [
        ("127.0.0.1", None, False, False),
        ("::1", None, False, False),
        ("localhost", None, False, False),
        ("0.0.0.0", None, False, True),
        ("192.168.1.5", None, False, True),
        ("0.0.0.0", "s3cret", False, False),
        ("0.0.0.0", None, True, False),
    ],
)
def test_bind_guard(host: str, key: str | None, allow: bool, refused: bool, tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path, dashboard_host=host, api_key=key, allow_unauthenticated=allow
    )
    message = check_bind(settings)
    assert (message is not None) == refused
    if refused:
        assert message is not None and "IRIS_API_KEY" in message


def test_serve_refuses_exposed_bind_without_key(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "IRIS_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--host", "0.0.0.0", "--port", "16921"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2
    assert "refusing to listen" in result.stderr


def test_flags_override_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from service.cli import build_parser, settings_from_args

    monkeypatch.setenv("IRIS_DASHBOARD_PORT", "7000")
    args = build_parser().parse_args(["serve", "--port", "7001", "--home", str(tmp_path)])
    assert settings_from_args(args).dashboard_port == 7001
    args = build_parser().parse_args(["serve", "--home", str(tmp_path)])
    assert settings_from_args(args).dashboard_port == 7000


def test_serve_flags_for_grpc_and_workers(tmp_path: Path) -> None:
    from service.cli import build_parser, settings_from_args

    args = build_parser().parse_args(
        [
            "serve",
            "--no-otlp-grpc",
            "--otlp-grpc-port",
            "5000",
            "--workers",
            "0",
            "--home",
            str(tmp_path),
        ]
    )
    settings = settings_from_args(args)
    assert (settings.otlp_grpc, settings.otlp_grpc_port, settings.workers) == (False, 5000, 0)
    defaults = settings_from_args(build_parser().parse_args(["serve", "--home", str(tmp_path)]))
    assert defaults.otlp_grpc is True and defaults.otlp_grpc_port == 4317
