/**
 * Pure: the Debian package that ships a Python distribution. Debian names most of them `python3-<name>`; the
 * exceptions below are the ones whose import name or Debian name differs. Whether the package exists in this
 * machine's archive is asked later (`tasks requirements`), never guessed here.
 */
const EXCEPTIONS: Record<string, string> = {
  beautifulsoup4: "python3-bs4",
  biopython: "python3-biopython",
  "opencv-python": "python3-opencv",
  "opencv-python-headless": "python3-opencv",
  // Debian builds OpenCV with the contrib modules into the one package.
  "opencv-contrib-python": "python3-opencv",
  "opencv-contrib-python-headless": "python3-opencv",
  // A command-line tool, packaged under its own name.
  twine: "twine",
  flit: "flit",
  cython: "cython3",
  gitpython: "python3-git",
  "fasttext-wheel": "python3-fasttext",
  pillow: "python3-pil",
  pyyaml: "python3-yaml",
  "scikit-learn": "python3-sklearn",
  "scikit-image": "python3-skimage",
  "python-dateutil": "python3-dateutil",
  pytz: "python3-tz",
  torch: "python3-torch",
  protobuf: "python3-protobuf",
  grpcio: "python3-grpcio",
  "grpcio-tools": "python3-grpc-tools",
  "msgpack-python": "python3-msgpack",
  pyzmq: "python3-zmq",
  pycryptodome: "python3-pycryptodome",
  attrs: "python3-attr",
  "typing-extensions": "python3-typing-extensions",
  "pytest-asyncio": "python3-pytest-asyncio",
  "pytest-timeout": "python3-pytest-timeout",
  "pytest-mock": "python3-pytest-mock",
  jinja2: "python3-jinja2",
  markupsafe: "python3-markupsafe",
  pexpect: "python3-pexpect",
  psutil: "python3-psutil",
};

/** Distributions that only serve Harbor's own reporting; the importer drops their use (e.g. `--ctrf`). */
export const HARBOR_ONLY = new Set(["pytest-json-ctrf"]);

export function debianPackageFor(distribution: string): string {
  const name = distribution.toLowerCase().replace(/[._]+/g, "-");
  return EXCEPTIONS[name] ?? `python3-${name.replace(/^python-/, "")}`;
}
