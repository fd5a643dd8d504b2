"""pyecho: a Demiurge toolset plugin in Python, written from the proto
(shared/proto/demiurge/toolset/v1/toolset.proto) and docs/plugin-protocol.md
alone. It proves the plugin protocol is language-neutral: the host starts it
like any plugin (magic cookie, AutoMTLS, the handshake line, gRPC health).

Packaged as a zipapp with a #! line (python3 -m zipapp), so the one file
the host checksums holds the whole plugin. Needs grpcio and cryptography
(Debian: python3-grpcio, python3-cryptography).
"""
import base64
import datetime
import json
import os
import sys
import threading

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from demiurge.toolset.v1 import toolset_pb2 as pb

COOKIE_KEY = "DEMIURGE_TOOLSET_PLUGIN"
COOKIE_VALUE = "c2c0f1de-6d3b-4f49-9a8e-0a4f3e7d4c1b"
CORE_PROTOCOL = 1  # go-plugin's own handshake version
APP_PROTOCOL = 1  # shared.ProtocolVersion
PROTOCOL_MINOR = 1
NAME = "pyecho"

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["text"],
    "properties": {"text": {"type": "string", "description": "Text to echo back, unchanged"}},
}


def describe(request, context):
    return pb.DescribeResponse(
        name=NAME,
        version="0.1.0",
        protocol_minor=PROTOCOL_MINOR,
        tools=[
            pb.ToolSpec(
                name="py_echo",
                description="Echo the text back, from a toolset written in Python.",
                input_schema=json.dumps(SCHEMA).encode(),
                metadata=pb.Metadata(risk="low", approval_policy="auto"),
                effect=pb.EFFECT_READ,
            )
        ],
    )


def configure(request, context):
    # host_services_broker_id would reach HostServices through the
    # go-plugin broker; this toolset needs none of them.
    return pb.ConfigureResponse()


def invoke(request, context):
    if request.tool != "py_echo":
        yield pb.InvokeEvent(result=pb.ToolResult(is_error=True, error_code="unknown_tool", content="no tool %r" % request.tool))
        return
    args = json.loads(request.arguments or b"{}")
    text = args.get("text", "")
    yield pb.InvokeEvent(progress=pb.Progress(message="echoing", fraction=0.5))
    yield pb.InvokeEvent(result=pb.ToolResult(content="py_echo: " + text, structured=json.dumps({"text": text, "length": len(text)}).encode()))


def precheck(request, context):
    return pb.ToolResult()


def cancel(request, context):
    return pb.CancelResponse(found=False)


def health(request, context):
    return pb.HealthResponse(status="ok")


def unary(fn, req_type, resp_type):
    return grpc.unary_unary_rpc_method_handler(fn, request_deserializer=req_type.FromString, response_serializer=resp_type.SerializeToString)


def raw_unary(fn):
    return grpc.unary_unary_rpc_method_handler(fn, request_deserializer=lambda b: b, response_serializer=lambda b: b)


def self_signed():
    """The plugin's half of AutoMTLS: a fresh key and a self-signed
    certificate for "localhost", as go-plugin makes one."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "HashiCorp")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(seconds=30))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(True, True, False, False, False, True, False, False, False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return key_pem, cert.public_bytes(serialization.Encoding.PEM), cert.public_bytes(serialization.Encoding.DER)


def sweep_descriptors():
    """Descriptor 3 (the verified image this zipapp is read from) and any
    other inherited one stay usable here but reach no program this
    plugin starts (docs/plugin-protocol.md)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        # Confined (a plugin installed by path reads no /proc): every
        # descriptor number up to the limit instead.
        import resource
        fds = range(3, min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1 << 16))
    for fd in fds:
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass


def main():
    sweep_descriptors()
    if os.environ.get(COOKIE_KEY) != COOKIE_VALUE:
        sys.stderr.write("This is a Demiurge toolset plugin: demiurge starts it; it does nothing run by hand.\n")
        return 1
    versions = os.environ.get("PLUGIN_PROTOCOL_VERSIONS", "").split(",")
    if str(APP_PROTOCOL) not in versions:
        sys.stderr.write("the host speaks protocol versions %s; this plugin speaks %d\n" % (versions, APP_PROTOCOL))
        return 1
    client_cert = os.environ.get("PLUGIN_CLIENT_CERT", "").encode()
    if not client_cert:
        sys.stderr.write("no PLUGIN_CLIENT_CERT: the host must start plugins with AutoMTLS\n")
        return 1

    done = threading.Event()

    def shutdown(request, context):
        done.set()
        return b""

    server = grpc.server(__import__("concurrent.futures").futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((
        grpc.method_handlers_generic_handler("demiurge.toolset.v1.Toolset", {
            "Describe": unary(describe, pb.DescribeRequest, pb.DescribeResponse),
            "Configure": unary(configure, pb.ConfigureRequest, pb.ConfigureResponse),
            "Invoke": grpc.unary_stream_rpc_method_handler(invoke, request_deserializer=pb.EffectRequest.FromString, response_serializer=pb.InvokeEvent.SerializeToString),
            "Precheck": unary(precheck, pb.EffectRequest, pb.ToolResult),
            "Cancel": unary(cancel, pb.CancelRequest, pb.CancelResponse),
            "Health": unary(health, pb.HealthRequest, pb.HealthResponse),
        }),
        # grpc.health.v1.Health/Check for service "plugin": SERVING is
        # field 1 = 1 of HealthCheckResponse, two bytes on the wire.
        grpc.method_handlers_generic_handler("grpc.health.v1.Health", {"Check": raw_unary(lambda req, ctx: b"\x08\x01")}),
        # go-plugin's controller: Shutdown(Empty) returns (Empty).
        grpc.method_handlers_generic_handler("plugin.GRPCController", {"Shutdown": raw_unary(shutdown)}),
    ))
    key_pem, cert_pem, cert_der = self_signed()
    creds = grpc.ssl_server_credentials([(key_pem, cert_pem)], root_certificates=client_cert, require_client_auth=True)
    # A confined plugin opens no IP socket: where the host names a
    # directory for unix sockets (PLUGIN_UNIX_SOCKET_DIR), it listens there.
    sock_dir = os.environ.get("PLUGIN_UNIX_SOCKET_DIR", "")
    if sock_dir:
        address = os.path.join(sock_dir, "plugin%d.sock" % os.getpid())
        server.add_secure_port("unix:" + address, creds)
        network = "unix"
    else:
        address = "127.0.0.1:%d" % server.add_secure_port("127.0.0.1:0", creds)
        network = "tcp"
    server.start()
    # The handshake line: CORE|APP|NETWORK|ADDRESS|PROTOCOL|SERVER-CERT,
    # the certificate as unpadded standard base64 of its DER.
    cert_b64 = base64.b64encode(cert_der).decode().rstrip("=")
    sys.stdout.write("%d|%d|%s|%s|grpc|%s\n" % (CORE_PROTOCOL, APP_PROTOCOL, network, address, cert_b64))
    sys.stdout.flush()
    done.wait()
    server.stop(grace=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
