# Sanitizer and fuzzer flags shared by every gnnc target.
if(GNNC_ENABLE_SANITIZERS)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(GNNC_ENABLE_FUZZER)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GNNC_ENABLE_FUZZER needs clang (configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19)")
  endif()
  # Instrument all of gnnc for coverage; only the fuzzer binary links the
  # libFuzzer main.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Generated ANTLR code needs exceptions and RTTI; LLVM-style code is built
# without exceptions. This helper applies the parser's flags to one target.
function(gnnc_enable_exceptions target)
  target_compile_options(${target} PRIVATE -fexceptions -frtti -Wno-attributes)
endfunction()
