// GoogleTest inside sc_main: each SystemC test executable runs one test case per process
// (gtest_discover_tests passes --gtest_filter), because SystemC cannot elaborate twice.
#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char **argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
