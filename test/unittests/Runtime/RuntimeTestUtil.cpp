//===- RuntimeTestUtil.cpp - Helpers for the runtime data tests -----------===//
#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace gnnrt::test;

TempDir::TempDir() {
  std::string tmpl = ::testing::TempDir() + "gnnrt-data-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()))
    dir = buf.data();
  EXPECT_FALSE(dir.empty()) << "mkdtemp failed for " << tmpl;
}

TempDir::~TempDir() {
  if (dir.empty())
    return;
  // Flat directories only: the tests never make subdirectories.
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *ent = ::readdir(d)) {
      std::string name = ent->d_name;
      if (name != "." && name != "..")
        ::unlink((dir + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

void TempDir::copyFrom(const std::string &from) const {
  DIR *d = ::opendir(from.c_str());
  ASSERT_NE(d, nullptr) << "cannot list " << from;
  while (dirent *ent = ::readdir(d)) {
    std::string src = from + "/" + ent->d_name;
    struct stat st;
    if (::stat(src.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    std::ifstream in(src, std::ios::binary);
    std::ofstream out(dir + "/" + ent->d_name, std::ios::binary);
    out << in.rdbuf();
  }
  ::closedir(d);
}
