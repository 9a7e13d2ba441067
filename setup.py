"""The one build step pyproject.toml cannot state stably: the C span scanner.

``receivers/otlp/_spanscan.c`` is optional: without a C compiler the
package still installs, and the OTLP receivers read the parsed message
instead (the same records, slower). Everything else is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "receivers.otlp._spanscan",
            sources=["receivers/otlp/_spanscan.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
