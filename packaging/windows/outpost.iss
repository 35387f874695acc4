; Inno Setup 6 script: a per-user installer for the one-folder build in dist\outpost.
; Built by build.ps1 as:  ISCC.exe /DAppVersion=VERSION packaging\windows\outpost.iss
; Relative paths below are relative to this file. Output: dist\outpost-VERSION-windows-x64-setup.exe

#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif
#define AppName "Outpost"
#define AppExe "outpost.exe"

[Setup]
; A fixed AppId keeps upgrades and the uninstaller entry together across versions.
AppId={{6F0C2B8E-4D1A-4F7B-9E3C-2A5D8B1C7E40}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Outpost contributors
VersionInfoVersion={#AppVersion}
VersionInfoDescription={#AppName} installer
; Per-user install: no administrator rights; {autopf} is %LOCALAPPDATA%\Programs then.
PrivilegesRequired=lowest
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=outpost-{#AppVersion}-windows-x64-setup
SetupIconFile=..\..\resources\icons\outpost.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; Close a running Outpost before files are replaced.
CloseApplications=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; PyInstaller 6 puts everything but the executable in _internal\; take the whole folder.
Source: "..\..\dist\outpost\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "Outpost administration console"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; outpost:// links (alert mails, Copy as Markdown) open the error in the console; per user, removed on uninstall.
Root: HKCU; Subkey: "Software\Classes\outpost"; ValueType: string; ValueName: ""; ValueData: "URL:Outpost link"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\outpost"; ValueType: string; ValueName: "URL Protocol"; ValueData: ""
Root: HKCU; Subkey: "Software\Classes\outpost\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe},0"
Root: HKCU; Subkey: "Software\Classes\outpost\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

