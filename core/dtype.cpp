#include "core/dtype.h"

#include "core/error.h"

namespace opmark::core {

std::size_t size_of(DType t) {
  switch (t) {
    case DType::f64: return 8;
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::f8_e4m3: return 1;
    case DType::i8: return 1;
    case DType::i32: return 4;
  }
  return 0;
}

const char* name_of(DType t) {
  switch (t) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f8_e4m3: return "f8_e4m3";
    case DType::i8: return "i8";
    case DType::i32: return "i32";
  }
  return "?";
}

bool is_integer(DType t) { return t == DType::i8 || t == DType::i32; }

void require_float_type(DType t, const std::string& what_runs) {
  if (t != DType::f32 && t != DType::f16 && t != DType::bf16)
    throw Error(what_runs + " fp32, fp16 and bf16, not " + name_of(t));
}

}  // namespace opmark::core
