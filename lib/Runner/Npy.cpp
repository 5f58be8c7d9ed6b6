//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of amp-mlir. Format: the magic "\x93NUMPY", a major and a minor version
// byte, the header length (uint16 in 1.0, uint32 in 2.0/3.0, little-endian),
// then a Python dict literal padded with spaces and ended by '\n' such that
// the data starts at a multiple of 64 bytes:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (8, 16), }
//
//===----------------------------------------------------------------------===//

#include "amp/Runner/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::amp::runner;
using llvm::Expected;

static const char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;

static llvm::Error npyError(StringRef name, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 name + ": " + message);
}

int64_t NpyArray::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

std::optional<ElementKind> NpyArray::getElementKind() const {
  return llvm::StringSwitch<std::optional<ElementKind>>(descr)
      .Case("<f4", ElementKind::F32)
      .Case("<f2", ElementKind::F16)
      .Case("<f8", ElementKind::F64)
      .Case("<i4", ElementKind::I32)
      .Case("<i8", ElementKind::I64)
      .Case("|b1", ElementKind::I1)
      .Default(std::nullopt);
}

std::optional<StringRef> amp::runner::getNpyDescr(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return StringRef("<f4");
  case ElementKind::F16:
    return StringRef("<f2");
  case ElementKind::F64:
    return StringRef("<f8");
  case ElementKind::I32:
    return StringRef("<i4");
  case ElementKind::I64:
    return StringRef("<i8");
  case ElementKind::I1:
    return StringRef("|b1");
  case ElementKind::BF16:
    return std::nullopt;
  }
  return std::nullopt;
}

std::string amp::runner::describeNpyDescr(StringRef descr) {
  if (descr.size() < 3)
    return descr.str();
  StringRef kind = descr.substr(1, 1);
  unsigned bytes;
  if (descr.substr(2).getAsInteger(10, bytes))
    return descr.str();
  StringRef base = llvm::StringSwitch<StringRef>(kind)
                       .Case("f", "float")
                       .Case("i", "int")
                       .Case("u", "uint")
                       .Case("c", "complex")
                       .Case("b", "bool")
                       .Default("");
  if (base.empty())
    return descr.str();
  if (base == "bool")
    return "bool";
  return (base + llvm::Twine(bytes * 8)).str();
}

std::string amp::runner::formatNpyShape(ArrayRef<int64_t> shape) {
  std::string result = "(";
  llvm::raw_string_ostream os(result);
  llvm::interleave(shape, os, ", ");
  if (shape.size() == 1)
    os << ',';
  os << ')';
  return result;
}

namespace {
/// A tokenizer for the header's Python dict literal: strings, names
/// (True/False), integers and punctuation.
class HeaderParser {
public:
  HeaderParser(StringRef text) : text(text) {}

  void skipSpace() { text = text.ltrim(" \t\r\n"); }
  bool consume(char c) {
    skipSpace();
    if (!text.starts_with(StringRef(&c, 1)))
      return false;
    text = text.drop_front();
    return true;
  }
  bool atEnd() {
    skipSpace();
    return text.empty();
  }
  std::optional<std::string> parseString() {
    skipSpace();
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return std::nullopt;
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return std::nullopt;
    std::string value = text.substr(1, end - 1).str();
    text = text.drop_front(end + 1);
    return value;
  }
  std::optional<StringRef> parseName() {
    skipSpace();
    size_t length = 0;
    while (length < text.size() &&
           (llvm::isAlnum(text[length]) || text[length] == '_'))
      ++length;
    if (!length)
      return std::nullopt;
    StringRef name = text.take_front(length);
    text = text.drop_front(length);
    return name;
  }
  std::optional<int64_t> parseInteger() {
    skipSpace();
    size_t length = 0;
    while (length < text.size() && llvm::isDigit(text[length]))
      ++length;
    // Python 2 era files may write 8L.
    int64_t value;
    if (!length || text.take_front(length).getAsInteger(10, value))
      return std::nullopt;
    text = text.drop_front(length);
    if (text.starts_with("L"))
      text = text.drop_front();
    return value;
  }
  /// Skips one value we do not interpret (for unknown keys).
  bool skipValue() {
    skipSpace();
    if (text.empty())
      return false;
    if (text.front() == '\'' || text.front() == '"')
      return parseString().has_value();
    if (text.front() == '(' || text.front() == '[' || text.front() == '{') {
      int depth = 0;
      size_t i = 0;
      for (; i < text.size(); ++i) {
        char c = text[i];
        if (c == '(' || c == '[' || c == '{')
          ++depth;
        else if (c == ')' || c == ']' || c == '}') {
          if (--depth == 0)
            break;
        }
      }
      if (i == text.size())
        return false;
      text = text.drop_front(i + 1);
      return true;
    }
    size_t end = text.find_first_of(",}");
    if (end == StringRef::npos)
      return false;
    text = text.drop_front(end);
    return true;
  }
  char peek() {
    skipSpace();
    return text.empty() ? '\0' : text.front();
  }

private:
  StringRef text;
};
} // namespace

Expected<NpyArray> amp::runner::parseNpy(StringRef buffer, StringRef name) {
  if (buffer.size() < kMagicSize + 4 ||
      std::memcmp(buffer.data(), kMagic, kMagicSize) != 0)
    return npyError(name, "not a .npy file (no \\x93NUMPY magic)");
  unsigned major = static_cast<uint8_t>(buffer[6]);
  unsigned minor = static_cast<uint8_t>(buffer[7]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<uint8_t>(buffer[8]) |
                   (static_cast<size_t>(static_cast<uint8_t>(buffer[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (buffer.size() < 12)
      return npyError(name, "truncated .npy header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= static_cast<size_t>(static_cast<uint8_t>(buffer[8 + i]))
                      << (8 * i);
    headerStart = 12;
  } else {
    return npyError(name, "unsupported .npy format version " +
                              llvm::Twine(major) + "." + llvm::Twine(minor));
  }
  if (buffer.size() < headerStart + headerLength)
    return npyError(name, "truncated .npy header");
  StringRef header = buffer.substr(headerStart, headerLength);

  NpyArray array;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  bool fortranOrder = false;
  HeaderParser parser(header);
  auto malformed = [&]() {
    return npyError(name, "malformed .npy header: " + header.rtrim());
  };
  if (!parser.consume('{'))
    return malformed();
  while (!parser.consume('}')) {
    std::optional<std::string> key = parser.parseString();
    if (!key || !parser.consume(':'))
      return malformed();
    if (*key == "descr") {
      if (parser.peek() == '[')
        return npyError(name, "structured arrays are not supported");
      std::optional<std::string> descr = parser.parseString();
      if (!descr)
        return malformed();
      array.descr = *descr;
      haveDescr = true;
    } else if (*key == "fortran_order") {
      std::optional<StringRef> value = parser.parseName();
      if (!value || (*value != "True" && *value != "False"))
        return malformed();
      fortranOrder = *value == "True";
      haveOrder = true;
    } else if (*key == "shape") {
      if (!parser.consume('('))
        return malformed();
      while (!parser.consume(')')) {
        std::optional<int64_t> size = parser.parseInteger();
        if (!size)
          return malformed();
        array.shape.push_back(*size);
        if (!parser.consume(',') && parser.peek() != ')')
          return malformed();
      }
      haveShape = true;
    } else if (!parser.skipValue()) {
      return malformed();
    }
    if (!parser.consume(',') && parser.peek() != '}')
      return malformed();
  }
  if (!haveDescr || !haveOrder || !haveShape)
    return npyError(name, "the .npy header lacks 'descr', 'fortran_order' or "
                          "'shape'");
  if (fortranOrder)
    return npyError(name, "Fortran-ordered arrays are not supported (save a "
                          "C-ordered array: numpy.ascontiguousarray)");

  // Byte order: '<' little-endian, '=' native (little-endian on the hosts
  // amp-run supports), '|' not applicable (one-byte types).
  if (array.descr.size() >= 2 && array.descr[0] == '=')
    array.descr[0] = '<';
  if (array.descr.size() >= 2 && array.descr[0] == '>' &&
      !StringRef(array.descr).ends_with("1"))
    return npyError(name, "big-endian arrays ('" + array.descr +
                              "') are not supported");

  // The data: only the element size is needed here, even for dtypes the
  // caller will reject, so that it can say what the file holds.
  unsigned itemSize = 0;
  if (array.descr.size() >= 3)
    (void)StringRef(array.descr).substr(2).getAsInteger(10, itemSize);
  size_t dataStart = headerStart + headerLength;
  if (itemSize) {
    size_t bytes = static_cast<size_t>(array.getNumElements()) * itemSize;
    if (buffer.size() - dataStart < bytes)
      return npyError(
          name, "truncated .npy data: " + llvm::Twine(bytes) +
                    " bytes expected for shape " + formatNpyShape(array.shape) +
                    " of '" + array.descr + "', " +
                    llvm::Twine(buffer.size() - dataStart) + " present");
    array.data.assign(buffer.data() + dataStart,
                      buffer.data() + dataStart + bytes);
  }
  return array;
}

Expected<NpyArray> amp::runner::readNpy(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return npyError(path, "cannot read: " + file.getError().message());
  return parseNpy((*file)->getBuffer(), path);
}

std::string amp::runner::serializeNpy(StringRef descr, ArrayRef<int64_t> shape,
                                      const void *data, size_t byteSize) {
  std::string dict =
      ("{'descr': '" + descr +
       "', 'fortran_order': False, 'shape': " + formatNpyShape(shape) + ", }")
          .str();
  // Pad with spaces so that magic + version + length + header + '\n' is a
  // multiple of 64 bytes.
  bool version2 = dict.size() + 1 + 10 > 65535;
  size_t prefix = version2 ? 12 : 10;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');

  std::string out(kMagic, kMagicSize);
  out.push_back(static_cast<char>(version2 ? 2 : 1));
  out.push_back(0);
  size_t length = dict.size();
  for (size_t i = 0; i < (version2 ? 4u : 2u); ++i)
    out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out += dict;
  out.append(static_cast<const char *>(data), byteSize);
  return out;
}

llvm::Error amp::runner::writeNpy(StringRef path, const HostTensor &tensor) {
  const TensorSpec &type = tensor.getType();
  std::string image;
  if (type.element == ElementKind::BF16) {
    // NumPy has no bfloat16: widen (exactly) to float32.
    std::vector<float> widened(tensor.getNumElements());
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i)
      widened[i] = static_cast<float>(tensor.getAsDouble(i));
    image = serializeNpy("<f4", type.shape, widened.data(),
                         widened.size() * sizeof(float));
  } else {
    image = serializeNpy(*getNpyDescr(type.element), type.shape,
                         tensor.getData(), tensor.getByteSize());
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError(path, "cannot write: " + ec.message());
  os << image;
  os.close();
  if (os.has_error()) {
    std::error_code error = os.error();
    os.clear_error();
    return npyError(path, "cannot write: " + error.message());
  }
  return llvm::Error::success();
}
