// Choosing the device a test runs on. Tessera has one device that runs
// kernels (the default accelerator, with double precision) beside C++ AMP's
// CPU accelerator: a test asking for it (or for any device) gets it; a test asking for particular Direct3D hardware, for a
// device without double precision, or for a second device is skipped, as
// the library skips a test whose device is missing.
#pragma once

#include <cstdlib>
#include <iostream>
#include <vector>
#include <amp.h>
#include <amptest/runall.h>

namespace concurrency {
namespace Test {

// The library's flags are an enumeration; here they are a class with the
// same names (`device_flags::NOT_SPECIFIED`), so that `require_device` can be
// overloaded on them and on `Device` alike.
struct device_flags {
    int bits;
    static const device_flags INCLUDE_CPU;
    static const device_flags EMULATED;
    static const device_flags NOT_EMULATED;
    static const device_flags D3D11_REF;
    static const device_flags D3D11_WARP;
    static const device_flags D3D11_GPU;
    static const device_flags D3D11_ATI;
    static const device_flags D3D11_NVIDIA;
    static const device_flags AMP_DEFAULT;
    static const device_flags DOUBLE;
    static const device_flags LIMITED_DOUBLE;
    static const device_flags LIMITED_DOUBLE_ONLY;
    static const device_flags NO_DOUBLE;
    static const device_flags NOT_SPECIFIED;
};

const device_flags device_flags::INCLUDE_CPU = {1 << 1};
const device_flags device_flags::EMULATED = {1 << 2};
const device_flags device_flags::NOT_EMULATED = {1 << 3};
const device_flags device_flags::D3D11_REF = {1 << 4};
const device_flags device_flags::D3D11_WARP = {1 << 5};
const device_flags device_flags::D3D11_GPU = {1 << 6};
const device_flags device_flags::D3D11_ATI = {1 << 7};
const device_flags device_flags::D3D11_NVIDIA = {1 << 8};
const device_flags device_flags::AMP_DEFAULT = {1 << 10};
const device_flags device_flags::DOUBLE = {1 << 11};
const device_flags device_flags::LIMITED_DOUBLE = {1 << 12};
const device_flags device_flags::LIMITED_DOUBLE_ONLY = {1 << 13};
const device_flags device_flags::NO_DOUBLE = {1 << 14};
const device_flags device_flags::NOT_SPECIFIED = {0};

inline device_flags operator|(const device_flags& a, const device_flags& b) {
    device_flags both = {a.bits | b.bits};
    return both;
}

inline device_flags& operator|=(device_flags& a, const device_flags& b) {
    a.bits = a.bits | b.bits;
    return a;
}

// The library's older way of naming devices.
struct Device {
    int bits;
    static const Device D3D11_REF;
    static const Device D3D11_ATI;
    static const Device D3D11_NVIDIA;
    static const Device D3D11_GPU;
    static const Device D3D11_WARP;
    static const Device ALL_DEVICES;
};

const Device Device::D3D11_REF = {1 << 4};
const Device Device::D3D11_ATI = {1 << 7};
const Device Device::D3D11_NVIDIA = {1 << 8};
const Device Device::D3D11_GPU = {1 << 6};
const Device Device::D3D11_WARP = {1 << 5};
const Device Device::ALL_DEVICES = {0};

// Ends the test as skipped: the device it needs is not here.
inline void skip_for_missing_device() {
    std::cout << "require_device: no device with the required flags; skipping the test." << std::endl;
    exit(runall_skip);
}

// The flags this device cannot meet: Direct3D hardware and its emulators,
// and the absence (or limitation) of double precision.
inline bool device_flags_unmet(int flags) {
    int unmet = (1 << 2) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 13) | (1 << 14);
    return (flags & unmet) != 0;
}

// The devices that have `required_flags`: the default one, or none; the CPU
// accelerator (which runs no kernel) only with `INCLUDE_CPU`, as the
// library lists it.
inline std::vector<accelerator> get_available_devices(device_flags required_flags) {
    std::vector<accelerator> found;
    if (device_flags_unmet(required_flags.bits)) {
        return found;
    }
    std::vector<accelerator> all = accelerator::get_all();
    for (size_t i = 0; i < all.size(); i++) {
        bool cpu = all[i].get_device_path() == accelerator::cpu_accelerator;
        if (!cpu || (required_flags.bits & device_flags::INCLUDE_CPU.bits) != 0) {
            found.push_back(all[i]);
        }
    }
    return found;
}

inline accelerator require_device(device_flags required_flags) {
    if (device_flags_unmet(required_flags.bits)) {
        skip_for_missing_device();
    }
    return accelerator();
}

// A device other than `excluded`: with one device there is none.
inline accelerator require_device(const accelerator& excluded, device_flags required_flags) {
    skip_for_missing_device();
    return excluded;
}

inline accelerator require_device(Device required_device) {
    device_flags flags = {required_device.bits};
    return require_device(flags);
}

inline bool get_device(accelerator& device, device_flags required_flags) {
    if (device_flags_unmet(required_flags.bits)) {
        return false;
    }
    device = accelerator();
    return true;
}

inline bool get_device(Device required_device, accelerator& device) {
    device_flags flags = {required_device.bits};
    return get_device(device, flags);
}

template <typename T>
inline accelerator require_device_for(device_flags required_flags, bool full_double_support) {
    return require_device(required_flags);
}

template <typename T>
inline accelerator require_device_for(const accelerator& excluded, device_flags required_flags, bool full_double_support) {
    return require_device(excluded, required_flags);
}

template <typename T>
inline accelerator require_device_for(Device required_device) {
    return require_device(required_device);
}

inline accelerator require_device_with_double(Device required_device = Device::ALL_DEVICES) {
    return require_device(required_device);
}

}
}
