// GoogleTest inside sc_main: each SystemC test executable runs one test case per process
// (gtest_discover_tests passes --gtest_filter), because SystemC cannot elaborate twice.
#include <gtest/gtest.h>
#include <systemc>
#include <cstdlib>

__attribute__((constructor(101))) static void quiet_systemc_banner() { setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0); }

int sc_main(int argc, char **argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
