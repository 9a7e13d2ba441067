"""OTLP protocol half of the receivers: bounded decompression and body decoding.

Everything here is pure (bytes in, records out) so the HTTP and gRPC servers can
share it and tests can run it without a network.
"""
