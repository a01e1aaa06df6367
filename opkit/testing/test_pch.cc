// The one source of opkit_test_pch, the target whose precompiled header every
// test program reuses (Note [Test build cost] in cmake/OpkitTest.cmake). It
// holds no code (gtest_main gives the program its main): the target exists to
// build the header.
