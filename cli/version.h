#pragma once
namespace persim {
const char *version();
}
